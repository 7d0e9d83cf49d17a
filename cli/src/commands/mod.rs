//! One module per subcommand.

pub mod facts;
pub mod review;
pub mod submit;
