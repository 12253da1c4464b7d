//! Scu and cc member errors: CSRs, maps, parsers, tables, outputs.

use super::*;
use crate::valid::{AnyId, Location};

#[test]
fn control_template_is_valid() {
    ok(&with_control(|_, _| {}));
}

#[test]
fn csr_type() {
    let m = with_control(|_, s| {
        s.csrs.push(Csr {
            name: "wide".into(),
            ty: bits(65),
            init: c(0),
            host_readonly: false,
            is_param: false,
        });
    });
    assert_err!(m, ValidationError::CsrType { .. });
}

#[test]
fn csr_init_too_wide() {
    let m = with_control(|_, s| {
        s.csrs.push(Csr {
            name: "small".into(),
            ty: bits(4),
            init: c(16),
            host_readonly: false,
            is_param: false,
        });
    });
    assert_err!(
        m,
        ValidationError::ConstTooWide {
            at: Location::Csr(..),
            width: 4,
            ..
        }
    );
}

#[test]
fn map_key_type() {
    let m = with_control(|_, s| {
        s.maps.push(Map {
            name: "m".into(),
            kind: MapKind::Hash,
            key: Type::Bool,
            value: bits(8),
            size: 4,
        });
    });
    assert_err!(m, ValidationError::MapKeyType { .. });
}

#[test]
fn parser_target_state() {
    let m = with_control(|_, s| {
        let mut states = PrimaryMap::new();
        let start = states.push(ParserState {
            name: "start".into(),
            block: Block::default(),
            transition: Transition::Direct(Target::State(StateId::from_u32(5))),
            span: Span::default(),
        });
        s.parser = Some(Parser {
            body: Body::default(),
            states,
            start,
        });
    });
    assert_err!(
        m,
        ValidationError::InvalidId {
            at: Location::State(..),
            id: AnyId::State(_),
            ..
        }
    );
}

#[test]
fn parser_reject_error() {
    let m = with_control(|_, s| {
        let mut states = PrimaryMap::new();
        let start = states.push(ParserState {
            name: "start".into(),
            block: Block::default(),
            transition: Transition::Direct(Target::Reject(ErrorId::from_u32(3))),
            span: Span::default(),
        });
        s.parser = Some(Parser {
            body: Body::default(),
            states,
            start,
        });
    });
    assert_err!(
        m,
        ValidationError::InvalidId {
            id: AnyId::Error(_),
            ..
        }
    );
}

/// The template's table, changed by `change`.
fn with_table(change: impl FnOnce(&mut Table)) -> Module {
    with_control(|_, s| change(&mut s.tables[TableId::from_u32(0)]))
}

#[test]
fn default_not_listed() {
    let m = with_control(|_, s| {
        let other = s.actions.push(Action {
            name: "other".into(),
            body: Body::default(),
        });
        s.tables[TableId::from_u32(0)].default = (other, vec![]);
    });
    assert_err!(m, ValidationError::DefaultNotListed { .. });
}

#[test]
fn key_type() {
    let m = with_table(|t| t.keys[0].ty = bits(32));
    assert_err!(m, ValidationError::KeyType { key: 0, .. });
}

#[test]
fn entry_key_count() {
    let m = with_table(|t| t.const_entries[0].keys.push(KeyMatch::Any));
    assert_err!(
        m,
        ValidationError::EntryKeyCount {
            expected: 1,
            found: 2,
            ..
        }
    );
}

#[test]
fn entry_key_kind() {
    let m = with_table(|t| t.const_entries[0].keys[0] = KeyMatch::Range(c(0), c(5)));
    assert_err!(
        m,
        ValidationError::EntryKeyKind {
            entry: 0,
            key: 0,
            ..
        }
    );
    let m = with_table(|t| t.const_entries[0].keys[0] = KeyMatch::Any);
    assert_err!(m, ValidationError::EntryKeyKind { .. });
}

#[test]
fn entry_lpm_prefixes() {
    let lpm = |m: KeyMatch| {
        with_table(|t| {
            t.keys[0].kind = MatchKind::Lpm;
            t.const_entries[0].keys[0] = m;
        })
    };
    ok(&lpm(KeyMatch::Lpm(c(0xff << 40), 8)));
    assert_err!(
        lpm(KeyMatch::Lpm(c(0x1ff << 39), 8)),
        ValidationError::EntryKeyKind { .. }
    );
    assert_err!(
        lpm(KeyMatch::Lpm(c(0), 49)),
        ValidationError::EntryKeyKind { .. }
    );
}

#[test]
fn entry_action() {
    let m = with_table(|t| t.const_entries[0].action = 2);
    assert_err!(m, ValidationError::EntryAction { action: 2, .. });
}

#[test]
fn action_args() {
    let m = with_table(|t| t.const_entries[0].args.clear());
    assert_err!(
        m,
        ValidationError::ActionArgs {
            entry: Some(0),
            expected: 1,
            found: 0,
            ..
        }
    );
    let m = with_table(|t| t.const_entries[0].args[0] = c(16));
    assert_err!(
        m,
        ValidationError::ConstTooWide {
            at: Location::Table(..),
            width: 4,
            ..
        }
    );
}

#[test]
fn too_many_entries() {
    let m = with_table(|t| t.size = 0);
    assert_err!(
        m,
        ValidationError::TooManyEntries {
            entries: 1,
            size: 0,
            ..
        }
    );
}

#[test]
fn cc_output_type() {
    let mut m = module();
    let mut cc = cc();
    cc.output.0 = OutputKind::Rate;
    m.ccs.push(cc);
    assert_err!(m, ValidationError::CcOutputType { .. });
}

#[test]
fn cc_output_missing() {
    let mut m = module();
    let mut cc = cc();
    cc.output.1 = CcStateId::from_u32(9);
    m.ccs.push(cc);
    assert_err!(
        m,
        ValidationError::InvalidId {
            id: AnyId::CcState(_),
            ..
        }
    );
}

#[test]
fn bad_params() {
    let m = with_control(|b, _| {
        b.param("x", bits(8));
    });
    assert_err!(m, ValidationError::BadParams { .. });
    let mut m = module();
    let mut s = scu("k", Attach::Rdma);
    let mut b = B::default();
    b.param("word", bits(256));
    s.stream = Some(b.body);
    m.scus.push(s);
    assert_err!(m, ValidationError::BadParams { .. });
    let mut m = module();
    let mut cc = cc();
    let mut b = B::default();
    b.param("sample", bits(64));
    cc.handlers.push(Handler {
        event: Event::Rtt,
        body: b.body,
        span: Span::default(),
    });
    m.ccs.push(cc);
    assert_err!(m, ValidationError::BadParams { .. });
}
