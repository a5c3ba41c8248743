//! Each language's table ([`Kinds`]), one file a language: all Whittle knows of it beyond its
//! grammar crate.

mod c;
mod cpp;
mod java;
mod javascript;
mod rust;

use crate::{Kinds, Lang};

pub(crate) fn table(lang: Lang) -> &'static Kinds {
    match lang {
        Lang::C => &c::KINDS,
        Lang::Cpp => &cpp::KINDS,
        Lang::Rust => &rust::KINDS,
        Lang::JavaScript => &javascript::KINDS,
        Lang::Java => &java::KINDS,
    }
}
