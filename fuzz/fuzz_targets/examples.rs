//! Shared by the simulation fuzz targets: every example program, checked and lowered once per
//! process. An example that fails to lower is a bug in the repository, not in the fuzz input, so it
//! panics here with the lowering error.

use scenic_ir::Module;
use std::sync::OnceLock;

const SOURCES: &[(&str, &str)] = &[
    ("firewall.sn", include_str!("../../examples/firewall.sn")),
    ("partition.sn", include_str!("../../examples/partition.sn")),
    ("dcqcn.sn", include_str!("../../examples/dcqcn.sn")),
    ("window_cc.sn", include_str!("../../examples/window_cc.sn")),
    ("timely.sn", include_str!("../../examples/timely.sn")),
    ("swift.sn", include_str!("../../examples/swift.sn")),
    (
        "flow_monitor.sn",
        include_str!("../../examples/flow_monitor.sn"),
    ),
    ("l3_router.sn", include_str!("../../examples/l3_router.sn")),
    (
        "xor_cipher.sn",
        include_str!("../../examples/xor_cipher.sn"),
    ),
];

/// The lowered examples, by file name.
pub fn modules() -> &'static [(&'static str, Module)] {
    static MODULES: OnceLock<Vec<(&'static str, Module)>> = OnceLock::new();
    MODULES.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(name, text)| {
                let mut session = scenic_frontend::Session::new();
                session.add_source(*name, *text);
                let module = scenic_lower::lower_session(&mut session)
                    .unwrap_or_else(|err| panic!("{name} does not lower: {err}"));
                (*name, module)
            })
            .collect()
    })
}
