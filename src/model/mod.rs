//! The handicap model of `spec/handicap-model.md`.
