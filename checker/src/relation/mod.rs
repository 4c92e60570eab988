//! Relations over events.

mod bitmatrix;

pub use bitmatrix::BitMatrix;
