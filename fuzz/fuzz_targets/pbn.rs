//! The PBN importer on arbitrary bytes: it may refuse them, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bridgehcp::import::pbn::parse_bytes(std::path::Path::new("fuzz.pbn"), data);
});
