//! ptxmc's frontend: PTX litmus text -> AST -> the compact typed IR ([`ir`]).

pub mod ir;
