//! Reference interpreter (issue 3).
