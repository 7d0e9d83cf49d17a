//! The deterministic stages of a review, one module each: grouping, the
//! exact-cover gate, the lane plan, the completeness gate, verification,
//! adjudication, the verdict, rendering, and the repository's conventions.
//! Every stage is a pure, synchronous function over typed values; callers
//! run the heavy ones off their async runtime.
//!
//! Nothing here talks to Redis or serves gRPC: `revu render` and `revu
//! verdict` link this crate alone, and the coordinator runs the same code.

pub mod adjudicate;
pub mod assemble;
pub mod completeness;
pub mod conventions;
pub mod cover;
pub mod fuzzing;
pub mod grouping;
pub mod plan;
pub mod radius;
pub mod render;
pub mod verdict;
pub mod verify;
