//! Tests of package assembly and writing with stand-in kernel text (the real kernels are tested in
//! backend-hls/tests/package.rs): the tree, determinism, scripts, the svh and overwriting rules.

use super::*;
use crate::ports::top_ports;

const PROGRAM: &str = "\
use std::net::{ethernet};
scu edge on slow_path {
    csr seen: bit<64> readonly;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { seen += 1; }
}
scu words on rdma(qp) {
    csr words: bit<32> readonly;
    stream(w: bit<512>) { words += 1; pass(w); }
}
";

fn module() -> (Module, ModuleInfo) {
    let mut session = scenic_frontend::Session::new();
    session.add_source("two.sn", PROGRAM);
    let report = scenic_lower::check::check(&mut session, Default::default());
    assert_eq!(report.error_count(), 0, "{}", report.render_plain());
    let module = scenic_lower::lower_file(session.db(), session.roots()[0])
        .unwrap_or_else(|e| panic!("lowering: {e}"));
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .unwrap_or_else(|e| panic!("validation: {e}"));
    (module, info)
}

fn generated(module: &Module, info: &ModuleInfo) -> Generated {
    let control = scenic_scu_abi::control::ControlLayout::new(module, info);
    let kernels = module
        .scus
        .values()
        .map(|s| KernelText {
            scu: s.name.clone(),
            top: s.name.clone(),
            hpp: format!("// {}.hpp\n", s.name),
            cpp: format!("// {}.cpp\n", s.name),
            tb: format!("// {}_tb.cpp\n", s.name),
            ports: top_ports(s.attach, control.data_bits),
            ii: 1,
            window_beats: 1,
        })
        .collect();
    Generated {
        kernels,
        ccs: Vec::new(),
        support: vec![("scenic_ops.hpp".into(), "// ops\n".into())],
        shims: vec![("hls_stream.h".into(), "// shim\n".into())],
    }
}

fn package() -> Package {
    let (module, info) = module();
    let options = PackageOptions {
        source_file: "two.sn".into(),
        ..PackageOptions::default()
    };
    Package::assemble(
        &module,
        &info,
        &options,
        PROGRAM,
        &generated(&module, &info),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn text<'p>(p: &'p Package, path: &str) -> &'p str {
    let bytes = p
        .files
        .get(path)
        .unwrap_or_else(|| panic!("no {path} in {:?}", p.files.keys()));
    std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_tree_has_every_file() {
    let p = package();
    let paths: Vec<&str> = p.files.keys().map(String::as_str).collect();
    let mut expected = vec![
        "README.md",
        "coyote/vfpga_top.svh",
        "hls/Makefile",
        "manifest.json",
        "model/module.json",
    ];
    for k in ["edge", "words"] {
        for f in [
            format!("{k}.cpp"),
            format!("{k}.hpp"),
            format!("{k}_tb.cpp"),
            "hls_config.cfg".into(),
            "run_hls.tcl".into(),
            "scenic_ops.hpp".into(),
            "shims/hls_stream.h".into(),
        ] {
            expected.push(Box::leak(format!("hls/{k}/{f}").into_boxed_str()));
        }
    }
    expected.sort_unstable();
    assert_eq!(paths, expected);
    assert_eq!(p.kernels(), ["edge", "words"]);
}

#[test]
fn assembling_twice_gives_the_same_bytes() {
    assert_eq!(package().files, package().files);
}

#[test]
fn manifest_names_kernels_ports_and_windows() {
    let p = package();
    let m = Manifest::from_json(text(&p, "manifest.json")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m, p.manifest);
    let edge = m.scus[0]
        .kernel
        .as_ref()
        .map(|k| (k.ip.as_str(), k.ports.len()));
    assert_eq!(edge, Some(("edge_hls_ip", 11)));
    let net_in = &m.scus[0].kernel.as_ref().map(|k| k.ports[0].clone());
    let net_in = net_in
        .as_ref()
        .map(|p| (p.name.as_str(), p.coyote.as_str()));
    assert_eq!(net_in, Some(("net_in", "SCENIC_NET_RX")));
    // Two scus share the user window, each in a power-of-two block.
    let stride = m.csr_window.stride_bytes;
    assert!(stride.is_power_of_two());
    assert_eq!(m.scus[1].csr_base, 0x20000 + stride);
    assert_eq!(m.scus[1].csrs[0].byte_address, 0x20000 + stride);
    let model: Module = scenic_ir::model::from_json(text(&p, "model/module.json"))
        .unwrap_or_else(|e| panic!("model: {e}"));
    assert_eq!(model, module().0);
}

#[test]
fn scripts_name_the_kernel_part_and_clock() {
    let p = package();
    let tcl = text(&p, "hls/edge/run_hls.tcl");
    for line in [
        "open_project -reset edge_prj",
        "set_top edge",
        "add_files edge.cpp",
        "add_files -tb edge_tb.cpp",
        "open_solution -reset -flow_target vitis solution1",
        "set_part {xcu55c-fsvh2892-2L-e}",
        "create_clock -period 2.558 -name default",
        "csynth_design",
        "export_design -format xo",
    ] {
        assert!(tcl.contains(line), "run_hls.tcl lacks `{line}`:\n{tcl}");
    }
    let cfg = text(&p, "hls/edge/hls_config.cfg");
    for line in [
        "part=xcu55c-fsvh2892-2L-e",
        "[hls]",
        "flow_target=vitis",
        "clock=2.558ns",
        "syn.file=edge.cpp",
        "syn.top=edge",
        "tb.file=edge_tb.cpp",
        "syn.output.format=xo",
    ] {
        assert!(
            cfg.lines().any(|l| l == line),
            "hls_config.cfg lacks `{line}`:\n{cfg}"
        );
    }
    let make = text(&p, "hls/Makefile");
    assert!(make.contains("KERNELS := edge words"), "{make}");
    assert!(make.contains("AP_TYPES is not set"), "{make}");
    assert!(make.contains(scripts::CSIM_CXXFLAGS), "{make}");
    assert!(
        make.contains("-Iedge -Iedge/shims -isystem $(AP_TYPES)"),
        "{make}"
    );
}

#[test]
fn the_svh_instantiates_every_kernel_and_ties_off_the_rest() {
    let p = package();
    let svh = text(&p, "coyote/vfpga_top.svh");
    assert!(svh.contains("edge_hls_ip inst_edge ("), "{svh}");
    assert!(svh.contains("words_hls_ip inst_words ("), "{svh}");
    assert!(
        svh.contains(".s_axis_net_in_TDATA(`SCENIC_NET_RX.tdata)"),
        "{svh}"
    );
    assert!(
        svh.contains(".s_axis_ctrl_in_TDATA(scenic_req[0])"),
        "{svh}"
    );
    assert!(svh.contains(".now_ns(scenic_now_ns)"), "{svh}");
    for tie in [
        "always_comb sq_rd.tie_off_m();",
        "always_comb cq_rd.tie_off_s();",
        "always_comb cq_wr.tie_off_s();",
        "axis_card_recv[i].tie_off_s();",
        "axis_tcp_recv.tie_off_s();",
    ] {
        assert!(svh.contains(tie), "no `{tie}` in the svh");
    }
    // Every port of every kernel is connected.
    for k in &p.manifest.scus {
        for port in &k.kernel.as_ref().map_or(vec![], |k| k.ports.clone()) {
            assert!(
                svh.contains(&format!(".{}", port.rtl_name)),
                "port {} unconnected",
                port.rtl_name
            );
        }
    }
    // One kernel drives Coyote's single notify interface; the QP register precedes its use.
    assert_eq!(svh.matches("(notify.valid)").count(), 1, "{svh}");
    let declared = svh.find("logic [23:0] scenic_qpn;");
    assert!(declared < svh.find("(scenic_qpn)"), "{svh}");
    let opens = svh.matches('(').count();
    assert_eq!(opens, svh.matches(')').count(), "unbalanced parentheses");
}

#[test]
fn writing_creates_updates_and_refuses() {
    let p = package();
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let dir = tmp.path().join("out");
    p.write(&dir).unwrap_or_else(|e| panic!("{e}"));
    for rel in p.files.keys() {
        let on_disk = std::fs::read(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(&on_disk, &p.files[rel], "{rel}");
    }
    // A stale kernel of an earlier build goes; files of the user's outside owned dirs stay.
    std::fs::create_dir_all(dir.join("hls/old")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("notes.txt"), "mine").unwrap_or_else(|e| panic!("{e}"));
    p.write(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(!dir.join("hls/old").exists());
    assert!(dir.join("notes.txt").exists());
    // A directory that is not a package is left alone.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(other.join("precious.txt"), "x").unwrap_or_else(|e| panic!("{e}"));
    let err = p.write(&other).map(|_| ());
    assert!(matches!(err, Err(PackageError::NotAPackage(_))), "{err:?}");
    assert!(other.join("precious.txt").exists());
}

#[test]
fn a_program_without_scus_has_no_hls_or_coyote() {
    let text = "cc w per flow[4] budget 65 cycles {\n    state c: size = 0B;\n    output window c;\n    on ack(a) { c = c + a.bytes; }\n}\n";
    let mut session = scenic_frontend::Session::new();
    session.add_source("w.sn", text);
    let module = scenic_lower::lower_file(session.db(), session.roots()[0])
        .unwrap_or_else(|e| panic!("{e}"));
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .unwrap_or_else(|e| panic!("{e}"));
    let p = Package::assemble(
        &module,
        &info,
        &PackageOptions::default(),
        text,
        &Generated::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = p.files.keys().map(String::as_str).collect();
    assert_eq!(paths, ["README.md", "manifest.json", "model/module.json"]);
    assert_eq!(p.manifest.ccs.len(), 1);
}

#[test]
fn the_support_library_is_embedded() {
    let g = Generated::new(
        Vec::new(),
        vec![("scenic_ops.hpp".into(), "// ops\n".into())],
    );
    let names: Vec<&str> = g.support.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"scenic_hls.hpp"), "{names:?}");
    assert!(names.contains(&"scenic_ops.hpp"), "{names:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert!(g.support.iter().all(|(_, text)| !text.is_empty()));
}
