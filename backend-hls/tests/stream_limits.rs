//! The honest limits of stream kernels: what cannot run at one word per cycle on chip is an
//! `Error::Limit` with the span of the construct and the computed figure, never a slower kernel.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use scenic_backend_hls::{Error, Options, SourceLines};

/// Lowers `text` and generates its kernels; the error, if any, with the line it points at.
fn generate(text: &str) -> Result<(), Box<(Error, Option<String>)>> {
    let mut session = scenic_frontend::Session::new();
    let file = session.add_source("limits.sn", text);
    let report = session.check(scenic_frontend::CheckOptions::default());
    assert_eq!(report.error_count(), 0, "the program checks");
    let module = scenic_lower::lower_session(&mut session).expect("lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("valid");
    let mut sources = SourceLines::default();
    let db = session.db();
    sources.add(
        file.id(db).0,
        file.name(db).as_str(),
        file.text(db).as_str(),
    );
    let options = Options {
        sources: sources.clone(),
        ..Options::default()
    };
    match scenic_backend_hls::write_kernel(&module, &info, &options) {
        Ok(_) => Ok(()),
        Err(e) => {
            let at = e.span().and_then(|s| sources.locate(s));
            Err(Box::new((e, at)))
        }
    }
}

/// Four rows per word, each adding to a 64-bit total of a map cell that another row of the same
/// word may also update: the unrolled copies chain four 64-bit adds through the map.
const CHAINED: &str = r#"
struct cell {
    total: bit<64>,
}

scu chained on rdma(qp) {
    map per_key: array<bit<2>, cell>[4];

    stream(word: bit<512>) {
        for r in 0..4 {
            let k = word[r * 128 + 1 : r * 128];
            let mut c = per_key.get(k);
            c.total += 1;
            let _ = per_key.insert(k, c);
        }
        pass(word);
    }
}
"#;

#[test]
fn an_unrolled_loop_that_breaks_ii_1_is_an_error() {
    let (err, at) = *generate(CHAINED).expect_err("II 4 is refused");
    let Error::Limit {
        what,
        figure,
        limit,
        ..
    } = &err
    else {
        panic!("not a limit: {err:?}");
    };
    assert!(what.contains("stream kernel"), "{what}");
    assert!(figure.starts_with("II 4"), "{figure}");
    assert!(figure.contains("map `per_key`"), "{figure}");
    assert!(limit.contains("II 1"), "{limit}");
    // The span is where the dependency closes: the write back into the map.
    assert_eq!(at.as_deref(), Some("limits.sn:14"), "{err}");
}

#[test]
fn the_same_loop_without_the_chain_is_generated() {
    let ok = CHAINED.replace("c.total += 1;", "c.total = 1;");
    generate(&ok).expect("II 1");
}

#[test]
fn batch_buffers_over_the_on_chip_ram_are_an_error() {
    let text = r#"
scu big on rdma(qp) {
    out to_gpu: [dma; 4096] batch 16MiB;

    stream(word: bit<512>) {
        to_gpu[word[11:0]].push(word);
    }
}
"#;
    let (err, _) = *generate(text).expect_err("64 GiB of batches is refused");
    let Error::Limit {
        what,
        figure,
        limit,
        ..
    } = &err
    else {
        panic!("not a limit: {err:?}");
    };
    assert!(what.contains("batch buffers of output `to_gpu`"), "{what}");
    assert!(figure.ends_with("bits for all batch buffers"), "{figure}");
    assert!(limit.contains("ram_budget_bits"), "{limit}");
}

#[test]
fn batch_buffers_that_fit_are_generated() {
    let text = r#"
scu fits on tcp(flow) {
    out to_host: [dma; 2] batch 4KiB;

    stream(word: bit<512>) {
        to_host[word[0:0]].push(word);
        pass(word);
    }
}
"#;
    generate(text).expect("2 x 4 KiB fits");
}

#[test]
fn passing_two_words_per_word_is_an_error() {
    let text = r#"
scu twice on rdma(qp) {
    stream(word: bit<512>) {
        // One `pass` per path for the checker (E0501), but the unrolled loop has two.
        for i in 0..2 {
            if beat.keep[i:i] == 1 {
                pass(word);
            }
        }
    }
}
"#;
    let (err, at) = *generate(text).expect_err("pass_out takes one word per cycle");
    let Error::Limit { what, figure, .. } = &err else {
        panic!("not a limit: {err:?}");
    };
    assert!(what.contains("passed on"), "{what}");
    assert_eq!(figure, "2 words");
    assert!(at.is_some(), "{err}");
}
