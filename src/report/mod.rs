//! Writing the outputs of the data contract.
