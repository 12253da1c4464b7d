//! The one exception type, `scenic.ScenicError`, and the conversion of the runtime's errors into it:
//! the message is the error's `Display` followed by its causes, as the `scenic` CLI prints them.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(
    scenic,
    ScenicError,
    PyException,
    "An operation the SCENIC runtime refused or that failed; the message is the runtime's."
);

/// `err` and its causes as one message.
fn message(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

/// A runtime error as a `ScenicError`.
pub fn to_py(err: impl std::error::Error) -> PyErr {
    ScenicError::new_err(message(&err))
}

/// A refusal of this layer (a bad argument found before calling the runtime) as a `ScenicError`.
pub fn refused(text: String) -> PyErr {
    ScenicError::new_err(text)
}
