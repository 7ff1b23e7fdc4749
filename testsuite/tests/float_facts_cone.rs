//! `float_facts::analyze_cone` against the whole analysis: on random programs in SSA form, every
//! value the cone is asked for (the operands of the legacy products, as `trim-legacy-guards`
//! asks, and of every third other op) gets exactly the facts `float_facts::analyze` gives it,
//! and no op gets facts the whole analysis does not know.

use irc_ir::{Module, SsaDef};
use irc_passes::float_facts::{analyze, analyze_cone, Fact, FloatFacts};
use irc_passes::{ManagerOptions, PassManager};
use irc_testsuite::gen::{generate, Form, Limits};

const SEEDS: u64 = 300;

fn lanes_equal(a: &FloatFacts, b: &FloatFacts, d: SsaDef) -> bool {
    (0..4).all(|i| a.get(d, i) == b.get(d, i))
}

fn roots(m: &Module) -> Vec<SsaDef> {
    m.code()
        .enumerate()
        .filter(|&(i, d)| m.opcode(d).info().attrs.contains(irc_ir::Attrs::LEGACY) || i % 3 == 0)
        .flat_map(|(_, d)| m.op(d).ref_defs().collect::<Vec<_>>())
        .collect()
}

#[test]
fn the_cone_has_the_facts_of_the_whole_analysis() {
    let (mut checked, mut known) = (0, 0);
    for seed in 0..SEEDS {
        let mut m = generate(seed, Form::Raw, Limits::default());
        let mut pm = PassManager::new(ManagerOptions::default());
        if irc_testsuite::pipeline::run(&mut pm, &mut m, "frontend").is_err() {
            continue;
        }
        let whole = analyze(&m);
        let roots = roots(&m);
        let cone = analyze_cone(&m, roots.iter().copied());
        for &r in &roots {
            assert!(
                lanes_equal(&cone, &whole, r),
                "seed {seed}: {r} ({:?}) has other facts in the cone",
                m.opcode(r)
            );
            checked += 1;
            known += usize::from((0..4).any(|i| !whole.get(r, i).nan));
        }
        // Outside the roots, an op has the whole analysis' facts or none.
        for d in m.iter() {
            let none = (0..4).all(|i| cone.get(d, i) == Fact::TOP);
            assert!(
                none || lanes_equal(&cone, &whole, d),
                "seed {seed}: {d} ({:?}) has facts the whole analysis does not give",
                m.opcode(d)
            );
        }
    }
    // The comparison must have met values the analysis knows something about.
    assert!(
        checked > 1000 && known > 100,
        "checked {checked}, known {known}"
    );
}
