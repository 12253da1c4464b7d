//! Checks the files named on the command line and prints diagnostics (a development aid; the real
//! command is `scenicc check`).

fn main() {
    let mut session = scenic_frontend::Session::new();
    for path in std::env::args().skip(1) {
        if let Err(err) = session.add_path(std::path::Path::new(&path)) {
            eprintln!("{err}");
            std::process::exit(2);
        }
    }
    let report = session.check(scenic_frontend::CheckOptions::default());
    print!("{}", report.render_plain());
    println!(
        "{} errors, {} warnings",
        report.error_count(),
        report.warning_count()
    );
    std::process::exit(i32::from(report.error_count() > 0));
}
