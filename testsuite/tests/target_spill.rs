//! The spill path of register allocators, proven by execution: for every target that declares
//! a `force-spills` option, generator programs compiled with values forced to memory must still
//! match the interpreter in the simulator, and must actually contain spill code.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::gen::{generate, Form, Limits};
use irc_testsuite::harness::check_shader_with;

#[test]
fn forced_spills_keep_programs_correct() {
    let mut checked = 0;
    for &target in irc::targets() {
        if !target.options().iter().any(|o| o.name == "force-spills") {
            continue;
        }
        let mut options = irc::Options::default();
        options.backend.set("force-spills", "4");
        let (mut compared, mut with_spills) = (0, 0);
        for seed in 0..120 {
            let raw = generate(seed, Form::Raw, Limits::default());
            let check = check_shader_with(target, &raw, 2, &options);
            match &check.outcome {
                Outcome::Ok | Outcome::Known(_) => {
                    compared += 1;
                    let stats = &check.output.as_ref().expect("compiled").stats;
                    if stats.spills > 0 && stats.fills > 0 {
                        with_spills += 1;
                    }
                }
                Outcome::Unsupported(_) => {}
                Outcome::Failed(why) => {
                    panic!("{}: seed {seed} with forced spills: {why}", target.name())
                }
            }
        }
        assert!(compared >= 40, "only {compared} programs compiled");
        assert!(
            with_spills * 2 >= compared,
            "only {with_spills} of {compared} programs spilled"
        );
        checked += 1;
    }
    assert!(checked > 0, "no target declares force-spills");
}
