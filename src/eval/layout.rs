//! Where each evaluation weight lives in the weight vector: one offset and
//! length per term, shared by the evaluation, its trace, the tuner and the
//! `eval` command's report, so that they can never disagree.

/// A middlegame and an endgame value (centipawns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

/// One named term: a run of weights.
pub struct Term {
    pub name: &'static str,
    /// The report group the term is shown in by `eval`.
    pub group: Group,
    pub offset: usize,
    pub len: usize,
}

/// Report groups of the `eval` command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Material,
    Psqt,
    Mobility,
    Pawns,
    Passed,
    KingSafety,
    Pieces,
    Threats,
    Tempo,
}

impl Group {
    pub const ALL: [Group; 9] = [
        Group::Material,
        Group::Psqt,
        Group::Mobility,
        Group::Pawns,
        Group::Passed,
        Group::KingSafety,
        Group::Pieces,
        Group::Threats,
        Group::Tempo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Group::Material => "Material",
            Group::Psqt => "Piece squares",
            Group::Mobility => "Mobility",
            Group::Pawns => "Pawn structure",
            Group::Passed => "Passed pawns",
            Group::KingSafety => "King safety",
            Group::Pieces => "Pieces",
            Group::Threats => "Threats",
            Group::Tempo => "Tempo",
        }
    }
}

macro_rules! layout {
    ($( $name:ident : $len:expr, $group:ident ;)*) => {
        layout!(@offsets 0usize; $( $name : $len ;)*);
        /// Every term, in weight-vector order.
        pub const TERMS: &[Term] = &[
            $( Term { name: stringify!($name), group: Group::$group, offset: $name, len: $len }, )*
        ];
    };
    (@offsets $at:expr; $name:ident : $len:expr ; $( $rest:ident : $rlen:expr ;)*) => {
        pub const $name: usize = $at;
        layout!(@offsets $at + $len; $( $rest : $rlen ;)*);
    };
    (@offsets $at:expr;) => {
        /// Number of weights.
        pub const NUM_WEIGHTS: usize = $at;
    };
}

layout! {
    // Indexed by `Role as usize - 1` (the king's entry is unused).
    MATERIAL: 6, Material;
    // [role][rank * 4 + file], from the side's own point of view (rank 0 is
    // its back rank), files e-h mirrored onto d-a: left-right symmetric.
    PSQT: 6 * 32, Psqt;
    // Indexed by the number of safe squares reached.
    MOBILITY_KNIGHT: 9, Mobility;
    MOBILITY_BISHOP: 14, Mobility;
    MOBILITY_ROOK: 15, Mobility;
    MOBILITY_QUEEN: 28, Mobility;
    DOUBLED: 1, Pawns;
    ISOLATED: 1, Pawns;
    BACKWARD: 1, Pawns;
    // By relative rank.
    PHALANX: 8, Pawns;
    SUPPORTED: 8, Pawns;
    CANDIDATE: 8, Passed;
    PASSED: 8, Passed;
    // A passed pawn whose path to promotion is empty.
    PASSED_FREE: 8, Passed;
    // Times the king distance to the square in front of a passed pawn.
    PASSED_OWN_KING: 8, Passed;
    PASSED_ENEMY_KING: 8, Passed;
    // Squares of the enemy king zone attacked, by attacker (knight, bishop, rook, queen).
    KING_ZONE: 4, KingSafety;
    // Safe checking squares reached, by piece (knight, bishop, rook, queen).
    SAFE_CHECK: 4, KingSafety;
    // Own pawn in front of the king one or two ranks ahead, or none, per file around it.
    SHIELD: 3, KingSafety;
    // Enemy pawn storming the king's files, by ranks away from the king (1 to 4).
    STORM: 4, KingSafety;
    KING_OPEN_FILE: 1, KingSafety;
    KING_SEMI_OPEN_FILE: 1, KingSafety;
    BISHOP_PAIR: 1, Pieces;
    ROOK_OPEN_FILE: 1, Pieces;
    ROOK_SEMI_OPEN_FILE: 1, Pieces;
    ROOK_SEVENTH: 1, Pieces;
    KNIGHT_OUTPOST: 1, Pieces;
    BISHOP_OUTPOST: 1, Pieces;
    // Enemy pieces attacked, by victim role.
    THREAT_BY_PAWN: 6, Threats;
    THREAT_BY_MINOR: 6, Threats;
    THREAT_BY_ROOK: 6, Threats;
    // Enemy pieces attacked and not defended.
    HANGING: 1, Threats;
    TEMPO: 1, Tempo;
}

/// The term a weight index belongs to.
pub fn term_of(index: usize) -> &'static Term {
    TERMS
        .iter()
        .rev()
        .find(|t| t.offset <= index)
        .unwrap_or(&TERMS[0])
}
