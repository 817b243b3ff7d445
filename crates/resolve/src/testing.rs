//! Builders the crate's tests share.

use sextant_model::NodeKind;

use crate::input::{Binds, FileCtx, Imp, LangRules, Symbol};

/// Python's rules, as far as the tests need them.
pub(crate) fn python_rules() -> LangRules {
    LangRules {
        id: "python".into(),
        family: "python".into(),
        self_names: vec!["self".into()],
        super_names: vec![],
        binds: Binds::None,
        implicit_self: false,
        module_style: "python".into(),
        builtin_names: Default::default(),
        builtin_members: Default::default(),
        separate_call_names: false,
    }
}

/// Python file `id` at `path` (its module the path's, dotted), its File node `id * 100`.
pub(crate) fn py_file(id: i64, path: &str) -> FileCtx {
    FileCtx {
        id,
        node: id * 100,
        path: path.into(),
        module: path.trim_end_matches(".py").replace('/', "."),
        lang: 0,
    }
}

/// Definition `id` of `file` named by the last segment of `qname`, inside `parent`.
pub(crate) fn def(id: i64, file: i64, kind: NodeKind, qname: &str, parent: i64) -> Symbol {
    Symbol {
        id,
        file,
        kind,
        name: qname.rsplit('.').next().unwrap_or(qname).into(),
        qname: qname.into(),
        parent: Some(parent),
        declaration: false,
        type_text: None,
    }
}

/// Import `id` of `file` (from its File node) of `source`, or of `name` from it.
pub(crate) fn import(id: i64, file: i64, source: &str, name: Option<&str>) -> Imp {
    Imp {
        id,
        file,
        src: file * 100,
        source: source.into(),
        name: name.map(Into::into),
        alias: None,
        wildcard: false,
    }
}
