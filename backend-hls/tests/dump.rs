//! `DUMP=dir cargo test -p scenic-backend-hls --test dump -- --ignored`: writes every generated
//! kernel of the examples into `dir`, for reading and compiling by hand.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

#[test]
#[ignore]
fn dump_kernels() {
    let Some(dir) = std::env::var_os("DUMP") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    for name in common::SLOW_PATH {
        let (module, info, options) = common::load(name);
        let files = scenic_backend_hls::write_kernel(&module, &info, &options).expect("generates");
        for k in &files.kernels {
            for (file, text) in k.files() {
                std::fs::create_dir_all(&dir).expect("dir");
                std::fs::write(dir.join(file), text).expect("write");
            }
        }
        for (file, text) in &files.support {
            std::fs::write(dir.join(file), text).expect("write");
        }
    }
}
