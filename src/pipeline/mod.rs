//! Replaying the rated competitions in date order.
