//! Strategies and their passes, as data: each strategy is a list of steps run in order,
//! round after round, until a round changes nothing.

use super::{
    comments, ddmin, dependencies, format, hdd, implicit_int, inline, local, merge, perses, rename,
    transform, types, unparsed, unwrap, update, Pass, Program,
};

/// A single-program pass, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    Comments,
    Perses,
    Hdd,
    DdminLines,
    DdminTokens,
    Transform,
    Dependencies,
    Inline,
    Merge,
    ErrorRegions,
    LineMarkers,
    Unwrap,
    Types,
    Rename,
    ImplicitInt,
    Format,
    Local,
    Update,
}

impl PassKind {
    /// The pass, fresh over `prog`. A `coarse` round tries only edits that remove a sizeable
    /// share of the program.
    pub fn start(self, prog: &Program, coarse: bool) -> Box<dyn Pass> {
        match self {
            PassKind::Comments => Box::new(comments::Comments::new(prog)),
            PassKind::Perses => Box::new(perses::Perses::new(prog, coarse)),
            PassKind::Hdd => Box::new(hdd::Hdd::new(prog)),
            PassKind::DdminLines => Box::new(ddmin::DdminUnits::lines(prog)),
            PassKind::DdminTokens => Box::new(ddmin::DdminUnits::tokens(prog)),
            PassKind::Transform => Box::new(transform::pass(prog)),
            PassKind::Dependencies => Box::new(dependencies::pass(prog)),
            PassKind::Inline => Box::new(inline::pass(prog)),
            PassKind::Merge => Box::new(merge::pass(prog)),
            PassKind::Types => Box::new(types::pass(prog)),
            PassKind::Rename => Box::new(rename::Rename::new(prog, coarse)),
            PassKind::ErrorRegions => Box::new(unparsed::ErrorRegions::new(prog, coarse)),
            PassKind::LineMarkers => Box::new(ddmin::DdminUnits::line_markers(prog)),
            PassKind::Unwrap => Box::new(unwrap::pass(prog)),
            PassKind::ImplicitInt => Box::new(implicit_int::pass(prog)),
            PassKind::Format => Box::new(format::Format::default()),
            PassKind::Local => Box::new(local::pass(prog)),
            PassKind::Update => Box::new(update::pass(prog)),
        }
    }
}

/// One step of a round.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub pass: PassKind,
    /// The rounds it runs in: the coarse ones or not, the stalled ones only.
    pub runs_in: fn(Round) -> bool,
}

/// The kind of round a step is picked in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Only edits that remove a sizeable share of the program.
    Coarse,
    Fine,
    /// A fine round in which no pass has made progress yet: the fixpoint, unless a step
    /// that runs only here finds something (then another round follows). Such steps come
    /// last, so the steps before them are numbered alike in every kind of round.
    Stalled,
}

const fn every_round(pass: PassKind) -> Step {
    Step {
        pass,
        runs_in: |_| true,
    }
}

/// Big bites, before the fine rounds' order takes over.
const fn coarse_only(pass: PassKind) -> Step {
    Step {
        pass,
        runs_in: |r| r == Round::Coarse,
    }
}

/// Rewrites wait until deletion has made the program small.
const fn fine_only(pass: PassKind) -> Step {
    Step {
        pass,
        runs_in: |r| r != Round::Coarse,
    }
}

/// After the fixpoint: searches too costly to run while cheaper passes still progress.
const fn stalled_only(pass: PassKind) -> Step {
    Step {
        pass,
        runs_in: |r| r == Round::Stalled,
    }
}

/// Renaming comes last: by then the rewrites have removed what they could. Its coarse
/// rounds try one edit of all names (bytes fall early); fine rounds one name at a time.
const PERSES: &[Step] = &[
    every_round(PassKind::Comments),
    every_round(PassKind::LineMarkers),
    // Coarse rounds delete big parts of the tree first, error regions with them; then what is
    // left of the regions. Fine rounds start with the regions: once an extension the grammar
    // lacks is gone, the next parse gives Perses whole trees where there were error regions.
    fine_only(PassKind::ErrorRegions),
    every_round(PassKind::Perses),
    coarse_only(PassKind::ErrorRegions),
    fine_only(PassKind::Dependencies),
    fine_only(PassKind::Inline),
    fine_only(PassKind::Unwrap),
    fine_only(PassKind::Types),
    fine_only(PassKind::Transform),
    fine_only(PassKind::Merge),
    every_round(PassKind::Rename),
    stalled_only(PassKind::Local),
    stalled_only(PassKind::Update),
];
/// After the fixpoint, once: the layout, then (when the settings ask for it,
/// `Settings::implicit_int`) the pass whose candidates the grammar cannot parse.
const PERSES_FINALE: &[PassKind] = &[PassKind::Format, PassKind::ImplicitInt];
const HDD: &[Step] = &[every_round(PassKind::Comments), every_round(PassKind::Hdd)];
const DDMIN_LINES: &[Step] = &[
    every_round(PassKind::Comments),
    every_round(PassKind::DdminLines),
];
const DDMIN_TOKENS: &[Step] = &[
    every_round(PassKind::Comments),
    every_round(PassKind::DdminTokens),
];

/// A strategy: which passes run, in order, repeated until none makes progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    Perses,
    Hdd,
    DdminLines,
    DdminTokens,
}

impl Strategy {
    pub const ALL: [Strategy; 4] = [
        Strategy::Perses,
        Strategy::Hdd,
        Strategy::DdminLines,
        Strategy::DdminTokens,
    ];

    pub fn from_name(name: &str) -> Option<Strategy> {
        match name {
            "perses" => Some(Strategy::Perses),
            "hdd" => Some(Strategy::Hdd),
            "ddmin-lines" | "lines" => Some(Strategy::DdminLines),
            "ddmin-tokens" | "tokens" | "ddmin" => Some(Strategy::DdminTokens),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Perses => "perses",
            Strategy::Hdd => "hdd",
            Strategy::DdminLines => "ddmin-lines",
            Strategy::DdminTokens => "ddmin-tokens",
        }
    }

    /// The steps of a round, in order.
    pub fn schedule(self) -> &'static [Step] {
        match self {
            Strategy::Perses => PERSES,
            Strategy::Hdd => HDD,
            Strategy::DdminLines => DDMIN_LINES,
            Strategy::DdminTokens => DDMIN_TOKENS,
        }
    }

    /// The passes of the finale, after the fixpoint: nothing is parsed again after them.
    pub fn finale(self) -> &'static [PassKind] {
        match self {
            Strategy::Perses => PERSES_FINALE,
            Strategy::Hdd | Strategy::DdminLines | Strategy::DdminTokens => &[],
        }
    }

    /// The steps of a round of this kind.
    pub fn steps(self, round: Round) -> impl Iterator<Item = PassKind> {
        self.schedule()
            .iter()
            .filter(move |s| (s.runs_in)(round))
            .map(|s| s.pass)
    }
}
