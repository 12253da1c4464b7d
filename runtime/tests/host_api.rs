//! The host API over packages (issue 12): `Package::open` and its refusals, loading into the
//! emulated device (the stage-1 server with its default loader), attaching by identity, and every
//! refusal that must happen before anything is sent (the request ring does not move).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use num_bigint::BigUint;
use scenic_io::value::MatchValue;
use scenic_runtime::abi::{global, slot, slot_block};
use scenic_runtime::container::{self, UnitKind};
use scenic_runtime::load::load_with;
use scenic_runtime::scu::table::parse_keys;
use scenic_runtime::{Package, PackageError, Scu, ScuError, Which};
use support::{build_package, Emu, TestPackage};

fn edit(path: &std::path::Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

fn open_err(dir: &std::path::Path) -> PackageError {
    Package::open(dir).expect_err("the package must be refused")
}

#[test]
fn a_built_package_opens_and_names_its_units() {
    let p = TestPackage::new("firewall");
    let pkg = Package::open(&p.dir).unwrap();
    assert_eq!(pkg.name(), "firewall");
    assert!(pkg.dir().is_absolute());
    assert_eq!(pkg.unit(None).unwrap(), (UnitKind::Scu, 0));
    assert_eq!(
        pkg.unit(Some("incast_firewall")).unwrap(),
        (UnitKind::Scu, 0)
    );
    assert_eq!(pkg.unit(Some("0")).unwrap(), (UnitKind::Scu, 0));
    let err = pkg.unit(Some("nope")).unwrap_err().to_string();
    assert!(
        err.contains("no unit `nope`") && err.contains("scu incast_firewall"),
        "{err}"
    );
    // The container holds the files' exact bytes.
    let image = pkg.container();
    let (m, n) = container::parse(&image).unwrap();
    assert_eq!(m, std::fs::read(p.dir.join("manifest.json")).unwrap());
    assert_eq!(n, std::fs::read(p.dir.join("model/module.json")).unwrap());
    let id = pkg.identity(UnitKind::Scu, 0).unwrap();
    assert_eq!(id.name_hash, container::name_hash("incast_firewall"));
}

#[test]
fn damaged_manifests_are_refused_with_file_and_position() {
    let p = TestPackage::new("firewall");
    let manifest = p.dir.join("manifest.json");
    let good = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, &good[..good.len() / 2]).unwrap();
    let err = open_err(&p.dir);
    assert!(matches!(err, PackageError::Manifest { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("manifest.json") && text.contains(':'),
        "{text}"
    );
    assert_eq!(err.exit_code(), 1);

    std::fs::write(
        &manifest,
        good.replacen("\"format_version\": 1", "\"format_version\": 7", 1),
    )
    .unwrap();
    let text = open_err(&p.dir).to_string();
    assert!(text.contains("format_version 7 is not supported"), "{text}");

    std::fs::write(&manifest, &good).unwrap();
    edit(
        &manifest,
        "\"compiler_version\": \"0.1.0\"",
        "\"compiler_version\": \"0.0.9\"",
    );
    let err = open_err(&p.dir);
    let text = err.to_string();
    assert!(
        matches!(err, PackageError::CompilerVersion { .. }),
        "{err:?}"
    );
    assert!(
        text.contains("scenicc 0.0.9")
            && text.contains("this runtime is 0.1.0")
            && text.contains("rebuild"),
        "{text}"
    );
}

#[test]
fn missing_and_damaged_models_are_refused() {
    let p = TestPackage::new("firewall");
    let err = open_err(&p.dir.join("nowhere"));
    assert_eq!(err.exit_code(), 2, "{err}");
    let model = p.dir.join("model/module.json");
    std::fs::write(&model, "{\"not\": \"a module\"}").unwrap();
    let err = open_err(&p.dir);
    let text = err.to_string();
    assert!(matches!(err, PackageError::Model { .. }), "{err:?}");
    assert!(
        text.contains("module.json") && text.contains("not a scenic module"),
        "{text}"
    );
    std::fs::remove_file(&model).unwrap();
    let err = open_err(&p.dir);
    assert!(
        matches!(err, PackageError::Io { .. }) && err.exit_code() == 2,
        "{err:?}"
    );
}

#[test]
fn a_model_from_another_build_is_a_mismatch() {
    let fw = TestPackage::new("firewall");
    let other = TestPackage::new("flow_monitor");
    std::fs::copy(
        other.dir.join("model/module.json"),
        fw.dir.join("model/module.json"),
    )
    .unwrap();
    let err = open_err(&fw.dir);
    let text = err.to_string();
    assert!(matches!(err, PackageError::Mismatch { .. }), "{err:?}");
    assert!(
        text.contains("does not belong to the manifest") && text.contains("scus"),
        "{text}"
    );
}

#[test]
fn key_syntax_is_the_stf_add_syntax() {
    let keys = parse_keys(&[
        "10.0.0.2/32",
        "_",
        "0x0800",
        "7000..=7099",
        "1..5",
        "0x0a&&&0xff",
    ])
    .unwrap();
    let n = |v: u64| BigUint::from(v);
    assert_eq!(
        keys,
        vec![
            MatchValue::Lpm {
                value: n(0x0a00_0002),
                prefix_len: 32
            },
            MatchValue::Any,
            MatchValue::Exact(n(0x800)),
            MatchValue::Range {
                lo: n(7000),
                hi: n(7099)
            },
            MatchValue::Range { lo: n(1), hi: n(4) },
            MatchValue::Ternary {
                value: n(10),
                mask: n(0xff)
            },
        ]
    );
    let err = parse_keys(&["_", "1.2.3"]).unwrap_err().to_string();
    assert!(
        err.contains("key 2 `1.2.3`") && err.contains("nothing was sent"),
        "{err}"
    );
    assert!(parse_keys(&["22..22"]).is_err(), "an empty half-open range");
}

/// The request ring's producer index of slot `k`: unchanged means nothing was sent.
fn requests_sent(dev: &scenic_runtime::Device, k: u8) -> u64 {
    dev.read(slot_block(k).unwrap() + slot::CQ_REQ_PROD)
        .unwrap()
}

#[test]
fn load_attach_and_refusals_before_sending() {
    let p = TestPackage::new("firewall");
    let emu = Emu::start();
    let dev = emu.open();
    let state = emu.state_dir();
    let pkg = Package::open(&p.dir).unwrap();
    let report = load_with(&dev, 0, &pkg, None, &state).unwrap();
    assert_eq!((report.slot, report.bank, report.active), (0, 0, true));
    assert!(report.slow_path, "incast_firewall is a slow_path scu");
    assert_eq!(dev.read(global::SLOW_PATH_SLOT).unwrap(), 0);
    let journal = state.read_journal(0).unwrap().unwrap();
    assert_eq!(journal.package, pkg.dir());
    assert_eq!(journal.unit, "incast_firewall");

    let scu = Scu::attach_with(&dev, 0, &pkg, None, Which::Active, state.clone()).unwrap();
    let sent = requests_sent(&dev, 0);
    let refused = |r: Result<u32, ScuError>, needle: &str| {
        let err = r.unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, ScuError::Refused(_) | ScuError::NoName { .. }),
            "{err:?}"
        );
        assert!(text.contains(needle), "`{needle}` not in: {text}");
        assert_eq!(
            requests_sent(&dev, 0),
            sent,
            "nothing reaches the device: {text}"
        );
    };
    refused(
        scu.table_add_text("acl", &["10.0.0.2/32", "_", "_"], "deny", &[], None),
        "has 4 key(s)",
    );
    refused(
        scu.table_add_text("acl", &["_", "_", "0x1ff", "_"], "deny", &[], None),
        "0x1ff does not fit",
    );
    refused(
        scu.table_add_text("acl", &["10.0.0.0/33", "_", "_", "_"], "deny", &[], None),
        "prefix",
    );
    refused(
        scu.table_add_text("acl", &["_", "_", "_", "_"], "limit", &["16"], None),
        "does not fit parameter `class`",
    );
    refused(
        scu.table_add_text("acl", &["_", "_", "_", "_"], "limit", &[], None),
        "takes 1 argument(s)",
    );
    refused(
        scu.table_add_text("acl", &["_", "_", "_", "_"], "reject", &[], None),
        "no action `reject`",
    );
    refused(
        scu.table_add_text("acls", &["_"], "deny", &[], None),
        "tables: acl",
    );
    refused(
        scu.table_add_text("acl", &["_", "_", "_", "1.2.3.4/8"], "deny", &[], None),
        "key 4",
    );
    // The worked example's entry is well-formed: its record is the manifest's encoding.
    let keys = parse_keys(&["10.0.0.2/32", "_", "_", "_"]).unwrap();
    let entry = scu
        .prepare_entry("acl", &keys, None, "deny", &[], None)
        .unwrap();
    assert!(entry.record.bits() <= 204, "acl records are 204 bits");
    assert_eq!(requests_sent(&dev, 0), sent);

    // CSRs: names, offsets, readonly, all checked before writing.
    assert_eq!(scu.csr("dropped").unwrap().offset, 0);
    let err = scu.csr_set("dropped", 1).unwrap_err().to_string();
    assert!(err.contains("readonly"), "{err}");
    let err = scu.csr_get("droped").unwrap_err().to_string();
    assert!(
        err.contains("no CSR `droped`") && err.contains("dropped, rate_limited"),
        "{err}"
    );
    assert!(scu.csr_at(4).is_err(), "word 4 is the mailbox's");
    assert_eq!(scu.csr_get_offset(0).unwrap(), 0);
    // Counters, maps, meters: indices and widths.
    let err = scu.counter_read("by_pod", 256).unwrap_err().to_string();
    assert!(
        err.contains("256 cells") && err.contains("nothing was sent"),
        "{err}"
    );
    let wide = BigUint::from(1u32) << 24usize;
    let err = scu.map_get("subnets", &wide).unwrap_err().to_string();
    assert!(err.contains("24-bit key of map `subnets`"), "{err}");
    assert!(scu.meter_configure("limiter", 16, 1, 1).is_err());
    assert_eq!(requests_sent(&dev, 0), sent);
}

#[test]
fn a_replacement_frees_the_old_bank_and_a_rebuilt_package_is_noticed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fw");
    build_package("firewall", &dir);
    let emu = Emu::start();
    let dev = emu.open();
    let state = emu.state_dir();
    let pkg = Package::open(&dir).unwrap();
    load_with(&dev, 1, &pkg, None, &state).unwrap();
    let again = load_with(&dev, 1, &pkg, None, &state).unwrap();
    assert_eq!((again.bank, again.replaced), (1, Some(0)));
    let st = dev.slot_state(1).unwrap();
    assert_eq!(
        st.banks[0],
        Some(slot::BankState::Empty),
        "the old bank is freed"
    );
    assert_eq!(st.banks[1], Some(slot::BankState::Active));

    // Rebuild the package in place from a changed source: the slot no longer runs it.
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/firewall.sn"),
    )
    .unwrap();
    support::build_source(
        "examples/firewall.sn",
        &format!("{source}\n// changed\n"),
        &dir,
    );
    let rebuilt = Package::open(&dir).unwrap();
    let err = Scu::attach_with(&dev, 1, &rebuilt, None, Which::Active, state.clone())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("runs another program") && err.contains("rebuilt"),
        "{err}"
    );
    // No active bank, and a cc unit in an SCU slot, are errors too.
    let err = Scu::attach_with(&dev, 2, &pkg, None, Which::Active, state.clone())
        .unwrap_err()
        .to_string();
    assert!(err.contains("slot 2: no active bank"), "{err}");
    let err = Scu::attach_with(&dev, 1, &pkg, None, Which::Other, state)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no SHADOW or DRAINING bank"), "{err}");
}

#[test]
fn a_cc_unit_does_not_go_into_an_scu_slot() {
    let p = TestPackage::new("dcqcn");
    let emu = Emu::start();
    let dev = emu.open();
    let pkg = Package::open(&p.dir).unwrap();
    let (kind, _) = pkg.unit(None).unwrap();
    assert_eq!(kind, UnitKind::Cc);
    let err = load_with(&dev, 0, &pkg, None, &emu.state_dir())
        .unwrap_err()
        .to_string();
    assert!(err.contains("is a cc, slot 0 is an SCU slot"), "{err}");
    assert_eq!(
        dev.slot_state(0).unwrap().banks[0],
        Some(slot::BankState::Empty)
    );
}
