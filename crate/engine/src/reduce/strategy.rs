//! Strategies and their passes, as data: each strategy is a list of steps run in order,
//! round after round, until a round changes nothing.

use super::PassKind;

/// One step of a round.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub pass: PassKind,
    pub rounds: Rounds,
}

/// The rounds a step runs in: the coarse ones or not, the stalled ones only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    Every,
    Coarse,
    Fine,
    Stalled,
}

impl Rounds {
    pub fn includes(self, round: Round) -> bool {
        match self {
            Rounds::Every => true,
            Rounds::Coarse => round == Round::Coarse,
            Rounds::Fine => round != Round::Coarse,
            Rounds::Stalled => round == Round::Stalled,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rounds::Every => "every",
            Rounds::Coarse => "coarse",
            Rounds::Fine => "fine",
            Rounds::Stalled => "stalled",
        }
    }
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
        rounds: Rounds::Every,
    }
}

/// Big bites, before the fine rounds' order takes over.
const fn coarse_only(pass: PassKind) -> Step {
    Step {
        pass,
        rounds: Rounds::Coarse,
    }
}

/// Rewrites wait until deletion has made the program small.
const fn fine_only(pass: PassKind) -> Step {
    Step {
        pass,
        rounds: Rounds::Fine,
    }
}

/// After the fixpoint: searches too costly to run while cheaper passes still progress.
const fn stalled_only(pass: PassKind) -> Step {
    Step {
        pass,
        rounds: Rounds::Stalled,
    }
}

/// Renaming comes last: by then the rewrites have removed what they could. Its coarse
/// rounds try one edit of all names (bytes fall early); fine rounds one name at a time.
const PERSES: &[Step] = &[
    every_round(PassKind::Comments),
    every_round(PassKind::LineMarkers),
    // Extensions the grammar cannot parse leave error regions, which make every check parse
    // the whole program (a window's recovery may differ from the whole's): every round starts
    // by deleting them, in one query if the test allows. Once an extension is gone, the next
    // parse gives Perses whole trees where there were error regions.
    every_round(PassKind::Extensions),
    // Coarse rounds delete big parts of the tree first, error regions with them; then what is
    // left of the regions. Fine rounds start with the regions.
    fine_only(PassKind::ErrorRegions),
    // Function bodies, then the definitions nothing names now, in bulk, before Perses tries
    // them one node at a time: a header's templates, each used by the next, fall together.
    // (After Perses, measured: small C programs finish sooner, but Perses spends a megabyte of
    // C++ headers' first minute for little, and the bulk passes come too late.)
    // What the last definitions reach by name, the rest at once: in every round, since
    // once Perses has deleted a use, a header's worth may follow it.
    every_round(PassKind::Roots),
    coarse_only(PassKind::Bodies),
    coarse_only(PassKind::Unused),
    // Deep nesting loses levels in bulk, where Perses would take one a query.
    coarse_only(PassKind::Chains),
    every_round(PassKind::Perses),
    // Once statements stop falling: what is left of them may end without a terminator.
    fine_only(PassKind::Terminators),
    // Runs of chunks across lists and error regions, by text. (A program too big to parse yet
    // starts with it, whatever the schedule: `Single::pass`.)
    coarse_only(PassKind::Chunks),
    coarse_only(PassKind::ErrorRegions),
    fine_only(PassKind::Dependencies),
    fine_only(PassKind::Inline),
    fine_only(PassKind::Unwrap),
    fine_only(PassKind::Types),
    fine_only(PassKind::Transform),
    fine_only(PassKind::Effects),
    fine_only(PassKind::TagIntoUse),
    fine_only(PassKind::Join),
    fine_only(PassKind::Merge),
    every_round(PassKind::Rename),
    stalled_only(PassKind::Local),
    stalled_only(PassKind::Clauses),
    stalled_only(PassKind::Update),
    stalled_only(PassKind::FileScope),
];
/// After the fixpoint, once: the layout, then the passes whose candidates the grammar cannot
/// parse (implicit int when the settings ask for it, `Settings::implicit_int`).
const PERSES_FINALE: &[PassKind] = &[PassKind::Format, PassKind::ImplicitInt, PassKind::BareField];
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

// "lines", "tokens" and "ddmin": the names of earlier versions.
whittle_grammars::names!(Strategy {
    Perses => "perses",
    Hdd => "hdd",
    DdminLines => "ddmin-lines" | "lines",
    DdminTokens => "ddmin-tokens" | "tokens" | "ddmin",
});

impl Strategy {
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

    /// The steps of a round of this kind, but the `skipped` passes.
    pub fn steps(self, round: Round, skipped: &[PassKind]) -> impl Iterator<Item = PassKind> + '_ {
        self.schedule()
            .iter()
            .filter(move |s| s.rounds.includes(round) && !skipped.contains(&s.pass))
            .map(|s| s.pass)
    }

    /// Where `pass` runs in this strategy: the rounds of each of its steps (`fine, coarse`),
    /// `finale`, or nothing.
    pub fn rounds_of(self, pass: PassKind) -> Vec<&'static str> {
        let steps = self.schedule().iter().filter(|s| s.pass == pass);
        let finale = self.finale().contains(&pass).then_some("finale");
        steps.map(|s| s.rounds.name()).chain(finale).collect()
    }
}
