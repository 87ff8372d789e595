//! `board-suite`, the root package of the board workspace: it owns the end-to-end tests in `tests/`
//! and the examples in `examples/`. The library itself is `board-core`.
pub use board_core;
