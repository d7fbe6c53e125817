//! The dataset reader on an arbitrary table: the first byte picks the table and its form
//! (Parquet or CSV), the rest is the file. The other tables are the shipped sample's
//! (Parquet form) or a small valid CSV set. Any outcome but a panic or an abort is fine.
#![no_main]

use std::path::Path;

use bridgehcp::store::table::{read_dataset_checked, TABLES};
use bridgehcp::quarantine::OnError;
use libfuzzer_sys::fuzz_target;

const CSV: [&str; 5] = [
    "member_id,name\n1,Ann\n2,Bo\n3,Cy\n4,Di\n",
    "competition_id,date,format,scoring,boards\nc1,2026-01-05,pairs,matchpoints,2\n",
    "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\n",
    "competition_id,entrant,boards_played,score\nc1,1,2,55\nc1,2,2,45\n",
    "competition_id,board,ns,ew,contract,declarer,tricks\nc1,1,1,2,3NT,S,9\nc1,2,1,2,4S,N,10\n",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let table = usize::from(pick) % TABLES.len();
    let csv = pick & 0x80 != 0;
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/sample");
    for (i, name) in TABLES.iter().enumerate() {
        let (target, bytes) = if csv {
            (dir.path().join(format!("{name}.csv")), CSV[i].as_bytes().to_vec())
        } else {
            let path = sample.join(format!("{name}.parquet"));
            (dir.path().join(format!("{name}.parquet")), std::fs::read(path).unwrap_or_default())
        };
        let bytes = if i == table { file.to_vec() } else { bytes };
        if std::fs::write(target, bytes).is_err() {
            return;
        }
    }
    let _ = read_dataset_checked(dir.path(), OnError::Quarantine);
});
