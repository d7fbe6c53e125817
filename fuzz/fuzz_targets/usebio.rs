//! The USEBIO importer on arbitrary bytes: it may refuse them, never panic or overflow
//! the stack.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bridgehcp::import::usebio::parse_bytes(std::path::Path::new("fuzz.xml"), data);
});
