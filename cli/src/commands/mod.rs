//! One module per subcommand.

pub mod bench;
pub mod eval;
pub mod facts;
pub mod index;
pub mod render;
pub mod review;
pub mod rules;
pub mod schema;
pub mod submit;
pub mod verdict;
