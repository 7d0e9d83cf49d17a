//! Compiles `revu/v1/*.proto` with protox (no `protoc` needed) and writes the
//! descriptor set that server reflection serves.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["revu/v1/review.proto", "revu/v1/index_cache.proto"];
    for p in &protos {
        println!("cargo:rerun-if-changed={p}");
    }
    let fds = protox::compile(protos, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("revu_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    tonic_prost_build::configure()
        // A diff can be tens of megabytes: as `Bytes`, a client that keeps
        // its request to send again after a dropped connection shares it
        // instead of copying it for each attempt.
        .bytes(".revu.v1.SubmitReviewRequest.diff")
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
