; JavaScript only (the typescript grammar wraps parameters in required/optional_parameter, which
; its own query binds): plain parameters are local names.
(formal_parameters (identifier) @binding.name @binding)
