//! Nothing: this package only names the sources the tests build (see Cargo.toml).
