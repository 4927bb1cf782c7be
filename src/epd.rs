//! EPD test suites (work in progress).
