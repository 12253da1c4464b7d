//! Lowers a file and prints its IR (a development aid; the real command is `scenicc emit ir`).

fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let mut session = scenic_frontend::Session::new();
    if let Err(err) = session.add_path(std::path::Path::new(&path)) {
        eprintln!("{err}");
        std::process::exit(2);
    }
    match scenic_lower::lower_session(&mut session) {
        Ok(module) => print!("{}", scenic_ir::print::print_module(&module)),
        Err(err) => {
            eprintln!("{err}");
            std::process::exit(1);
        }
    }
}
