//! The reproductions of bugs scenic-smith found (`tests/smith_regressions/*.sn`, each with its
//! `.stf`), kept as regression tests: every program checks, lowers to IR that validates, keeps
//! validating after `--passes all` and after each pass alone, and passes its STF test (written
//! by hand from language.md) on the reference interpreter and on every one of those modules.
//!
//! Each program also makes the P4 round trip of smith's `p4` backend for each target (write P4,
//! read it back with scenicc's reader): where the target expresses the program, its STF passes
//! on the P4-derived module too. A `// p4-targets: T...` line names the targets that must express
//! it, and a `// p4-refused: T CODE` line a target that must refuse it with that P-code.

use scenic_testsuite::smith;
use std::path::PathBuf;

fn cases() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/smith_regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sn"))
        // `SMITH_REGRESSION=p4-` runs only the programs whose file name contains it.
        .filter(|p| {
            std::env::var("SMITH_REGRESSION").map_or(true, |only| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains(&only))
            })
        })
        .collect();
    files.sort();
    files
}

fn stf_ok(module: &scenic_ir::program::Module, stf: &str, what: &str) {
    let report = scenic_sim::stf::run_text(module, stf, None);
    assert!(report.ok(), "{what}: {:?}", report.failures);
    assert!(report.passed > 0, "{what}: the STF checked nothing");
}

#[test]
fn smith_regressions_hold_on_every_pass() {
    let files = cases();
    assert!(!files.is_empty(), "no regression programs found");
    for sn in files {
        let name = sn.display().to_string();
        let source = std::fs::read_to_string(&sn).unwrap_or_else(|e| panic!("{name}: {e}"));
        let stf = std::fs::read_to_string(sn.with_extension("stf"))
            .unwrap_or_else(|e| panic!("{name}: its .stf: {e}"));
        let module = match smith::lower(&source) {
            Ok(m) => m,
            Err(e) => panic!("{name}: does not lower: {e:?}"),
        };
        if let Err(e) = scenic_ir::valid::Validator::new().validate(&module) {
            panic!("{name}: the lowered IR does not validate: {e:?}");
        }
        stf_ok(&module, &stf, &format!("{name} on the reference"));
        for variant in smith::variants() {
            match smith::apply_variant(&module, &variant) {
                Ok(m) => stf_ok(&m, &stf, &format!("{name} after `{variant}`")),
                Err(f) => panic!("{name}: {}", f.describe()),
            }
        }
        p4_round_trips(&name, &source, &module, &stf);
    }
}

/// The targets named on `// KEY: ...` lines, with the rest of each line.
fn header(source: &str, key: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("// {key}:")))
        .map(|rest| rest.trim().to_string())
        .collect()
}

fn p4_round_trips(name: &str, source: &str, module: &scenic_ir::program::Module, stf: &str) {
    let must_express: Vec<String> = header(source, "p4-targets")
        .iter()
        .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let must_refuse = header(source, "p4-refused");
    let scu = module.scus.values().next().map(|s| s.name.clone());
    for target in smith::p4::TARGETS {
        let t = target.name();
        let label = format!("{name} ({t})");
        match smith::p4::round_trip(module, scu.as_deref(), target) {
            Ok(smith::p4::RoundTrip::Module(back)) => {
                assert!(
                    !must_refuse.iter().any(|l| l.starts_with(&format!("{t} "))),
                    "{label}: expressed, but the program says it is refused"
                );
                stf_ok(&back, stf, &format!("{label} on the P4-derived module"));
            }
            Ok(smith::p4::RoundTrip::Refused(codes)) => {
                assert!(
                    !must_express.iter().any(|x| x == t),
                    "{label}: refused with {codes:?}, but the program says it is expressible"
                );
                for l in must_refuse
                    .iter()
                    .filter(|l| l.starts_with(&format!("{t} ")))
                {
                    let code = l[t.len()..].trim();
                    assert!(
                        codes.contains(&code),
                        "{label}: refused with {codes:?}, not {code}"
                    );
                }
            }
            Err(f) => panic!("{label}: {}", f.describe()),
        }
    }
}

/// The same programs and STF files on the C-simulated HLS kernels (`scenicc test --backend
/// hls-csim`), when the ap_types headers are there (`AP_TYPES`, which scripts/test.sh sets);
/// skipped with the reason otherwise.
#[test]
fn smith_regressions_hold_on_hls_csim() {
    let ap_types = match scenic_hls_csim::ap_types(None) {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("skipping the hls-csim regressions: {e}");
            return;
        }
    };
    for sn in cases() {
        let name = sn.display().to_string();
        let source = std::fs::read_to_string(&sn).unwrap_or_else(|e| panic!("{name}: {e}"));
        let stf = std::fs::read_to_string(sn.with_extension("stf"))
            .unwrap_or_else(|e| panic!("{name}: its .stf: {e}"));
        let module = smith::lower(&source).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let files = smith::csim::kernels(&module).unwrap_or_else(|o| panic!("{name}: {o:?}"));
        let outcome = smith::csim::run_stf(&module, &files, &stf, &ap_types);
        assert_eq!(outcome, smith::csim::Outcome::Passed, "{name} on hls-csim");
    }
}
