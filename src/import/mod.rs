//! Reading inputs: dataset tables through polars, and club scoring programs' exports.
