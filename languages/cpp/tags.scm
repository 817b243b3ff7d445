(compound_statement (declaration) @definition.variable)

(compound_statement (declaration declarator: (_) @definition.variable))

(compound_statement (_ (declaration) @definition.variable))

(compound_statement (_ (declaration declarator: (_) @definition.variable)))

(compound_statement (_ (_ (declaration) @definition.variable)))
