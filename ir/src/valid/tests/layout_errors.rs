//! Layout errors: headers, structs, enums, ill-formed types.

use super::*;
use crate::valid::{AnyId, Location};

#[test]
fn empty_module_is_valid() {
    let info = ok(&module());
    assert!(info.call_order.is_empty());
}

#[test]
fn header_field_type() {
    let mut m = module();
    let mut h = ethernet();
    h.fields[2].ty = Type::Bool;
    m.headers.push(h);
    assert_err!(m, ValidationError::HeaderFieldType { field: 2, .. });
}

#[test]
fn header_field_offset() {
    let mut m = module();
    let mut h = ethernet();
    h.fields[1].offset = 40;
    m.headers.push(h);
    assert_err!(
        m,
        ValidationError::HeaderFieldOffset {
            field: 1,
            expected: 48,
            found: 40,
            ..
        }
    );
}

#[test]
fn header_bits() {
    let mut m = module();
    let mut h = ethernet();
    h.bits = 120;
    m.headers.push(h);
    assert_err!(
        m,
        ValidationError::HeaderBits {
            expected: 112,
            found: 120,
            ..
        }
    );
}

#[test]
fn header_not_bytes() {
    let mut m = module();
    let mut h = ethernet();
    h.fields[2].ty = bits(12);
    h.bits = 108;
    m.headers.push(h);
    assert_err!(m, ValidationError::HeaderNotBytes { bits: 108, .. });
}

#[test]
fn struct_cycle() {
    let mut m = module();
    let a = StructId::from_u32(0);
    let b = StructId::from_u32(1);
    let field = |ty: Type| {
        vec![Field {
            name: "x".into(),
            ty,
            offset: 0,
        }]
    };
    m.structs.push(StructLayout {
        name: "a".into(),
        fields: field(Type::Array(Box::new(Type::Struct(b)), 2)),
    });
    m.structs.push(StructLayout {
        name: "b".into(),
        fields: field(Type::Struct(a)),
    });
    assert_err!(m, ValidationError::StructCycle { .. });
}

#[test]
fn struct_widths() {
    let mut m = module();
    let inner = m.structs.push(StructLayout {
        name: "in".into(),
        fields: vec![Field {
            name: "x".into(),
            ty: bits(3),
            offset: 0,
        }],
    });
    let arr = Type::Array(Box::new(Type::Struct(inner)), 4);
    let outer = m.structs.push(StructLayout {
        name: "out".into(),
        fields: vec![
            Field {
                name: "a".into(),
                ty: arr,
                offset: 0,
            },
            Field {
                name: "b".into(),
                ty: Type::Bool,
                offset: 0,
            },
        ],
    });
    let info = ok(&m);
    assert_eq!((info.struct_bits[inner], info.struct_bits[outer]), (3, 13));
}

#[test]
fn bad_type() {
    let mut m = module();
    m.structs.push(StructLayout {
        name: "s".into(),
        fields: vec![Field {
            name: "x".into(),
            ty: bits(0),
            offset: 0,
        }],
    });
    assert_err!(
        m,
        ValidationError::BadType {
            at: Location::Struct(_),
            ty: Type::Bits(0),
            ..
        }
    );
}

#[test]
fn invalid_layout_id() {
    let mut m = module();
    let missing = EnumId::from_u32(4);
    m.structs.push(StructLayout {
        name: "s".into(),
        fields: vec![Field {
            name: "x".into(),
            ty: Type::Enum(missing),
            offset: 0,
        }],
    });
    assert_err!(
        m,
        ValidationError::InvalidId {
            id: AnyId::Enum(_),
            ..
        }
    );
}

#[test]
fn enum_value_too_wide() {
    let mut m = module();
    m.enums.push(EnumDef {
        name: "e".into(),
        variants: vec![("a".into(), c(0)), ("b".into(), c(4))],
        width: 2,
    });
    assert_err!(
        m,
        ValidationError::ConstTooWide {
            at: Location::Enum(_),
            width: 2,
            ..
        }
    );
}
