//! The deterministic stages of a review, one module each. Every stage is a
//! pure, synchronous function over typed values; the service runs the heavy
//! ones off the async runtime.

pub mod adjudicate;
pub mod completeness;
pub mod cover;
pub mod grouping;
pub mod plan;
pub mod render;
pub mod verdict;
pub mod verify;
