//! The deterministic stages of a review. Every stage is a pure,
//! synchronous function over typed values; callers run the heavy ones off
//! their async runtime. Nothing here talks to Redis, serves gRPC or runs an
//! async runtime (the crate links none): `revu render` and `revu verdict`
//! link it alone, and the coordinator and `revu review` run the same code.
//!
//! A review, stage by stage, in the order the code runs them:
//!
//! | # | stage | where | run by |
//! |---|---|---|---|
//! | 1 | facts: the diff read as git reads it, risk tier and signals, files left out | [`prepare::prepare`] over `revu_domain::facts` | on submit |
//! | 2 | grouping: the deterministic domain slices | [`grouping`] | on submit |
//! | 3 | the exact-cover gate: every reviewed file in exactly one slice | [`cover`] | on submit, and again on a grouping lane's refinement |
//! | 4 | the lane plan: specialists by risk, a domain lane per slice, each with its engine and the repository's guidance ([`conventions`]) | [`plan`], [`prepare::place_domain_lanes`] | on submit (domain lanes after a grouping lane) |
//! | – | the lanes run on workers; their reports are gathered | (coordinator, worker) | |
//! | 5 | the completeness gate: a report missing a mandatory section is sent back once | [`completeness`] | per lane report |
//! | 6 | verification: citations checked against the diff and head files, confidence floors, duplicates merged, blast radius | [`verify`], [`radius`] | in [`assemble`] |
//! | 7 | adjudication: the adjudication lane's decisions applied to the BLOCKER and IMPORTANT candidates | [`adjudicate`] | in [`assemble`], when the review has it |
//! | 8 | the verdict: APPROVE / APPROVE WITH FOLLOWUPS / REQUEST CHANGES and MERGE-READY / NEEDS-HUMAN | [`verdict`] | in [`assemble`] |
//! | 9 | the canonical report, then Markdown, SARIF and rdjson from it | [`assemble::assemble`], [`render`] | on finish; rendering by whoever reads the report |
//!
//! [`limits`] holds the input limits the stages check, with the flag that
//! raises each; [`fuzzing`] the entry points of the fuzz targets.

pub mod adjudicate;
pub mod assemble;
pub mod completeness;
pub mod conventions;
pub mod cover;
pub mod fuzzing;
pub mod grouping;
pub mod limits;
pub mod plan;
pub mod prepare;
pub mod radius;
pub mod render;
pub mod verdict;
pub mod verify;
