//! The target registry: the one list of targets (and of capability profiles for target
//! families whose code generators are not built yet) that the driver, the command line and
//! the test harnesses consult. Nothing else names a target.
//!
//! [`Registry::builtin`] holds the targets irc ships; a test (or an embedder with its own
//! backend) extends a copy with [`Registry::with`] and hands it to the same entry points.

use std::sync::OnceLock;

use irc_backend::{PipelineKind, Target, TargetCaps};

/// Targets and capability profiles by name.
#[derive(Debug, Clone)]
pub struct Registry {
    targets: Vec<&'static dyn Target>,
    /// Capability profiles by family name (`lima`, `pica`, `agal`), for `opt:FAMILY`.
    profiles: Vec<(&'static str, TargetCaps)>,
}

impl Registry {
    /// The targets irc ships. Adding a target: one line here.
    pub fn builtin() -> &'static Registry {
        static BUILTIN: OnceLock<Registry> = OnceLock::new();
        BUILTIN.get_or_init(|| Registry {
            targets: vec![
                &irc_lima::pp::LimaFp,
                &irc_lima::gp::LimaVp,
                &irc_pica::PicaVs,
                &irc_pica::PicaGs,
                &irc_agal::AgalFp,
                &irc_agal::AgalVp,
            ],
            profiles: vec![
                ("lima", irc_lima::pp::caps::CAPS),
                ("pica", irc_pica::CAPS),
                ("agal", irc_agal::CAPS),
            ],
        })
    }

    /// This registry plus `target`.
    pub fn with(&self, target: &'static dyn Target) -> Registry {
        let mut r = self.clone();
        r.targets.push(target);
        r
    }

    /// Every target, in registration order.
    pub fn targets(&self) -> &[&'static dyn Target] {
        &self.targets
    }

    /// The target with this `--target` name.
    pub fn target(&self, name: &str) -> Option<&'static dyn Target> {
        self.targets.iter().copied().find(|t| t.name() == name)
    }

    /// The targets of a family (`lima` → `lima-fp`, later `lima-vp`).
    pub fn family(&self, family: &str) -> Vec<&'static dyn Target> {
        self.targets
            .iter()
            .copied()
            .filter(|t| t.family() == family)
            .collect()
    }

    /// The target with this `--target` name, or else the first target of the family with this
    /// name (for commands that read a family's shared format, such as `irc validate`).
    pub fn resolve(&self, name: &str) -> Option<&'static dyn Target> {
        self.target(name)
            .or_else(|| self.targets.iter().copied().find(|t| t.family() == name))
    }

    /// Names of every target.
    pub fn names(&self) -> Vec<&'static str> {
        self.targets.iter().map(|t| t.name()).collect()
    }

    /// Capabilities by name: `default` (dxbc-spirv's choices), a target name, or a family's
    /// profile name.
    pub fn caps(&self, name: &str) -> Option<TargetCaps> {
        if name == TargetCaps::DEFAULT.name {
            return Some(TargetCaps::DEFAULT);
        }
        if let Some(t) = self.target(name) {
            return Some(t.caps().clone());
        }
        self.profiles
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.clone())
    }

    /// Names [`Registry::caps`] accepts besides `default`: targets, then profiles.
    pub fn caps_names(&self) -> Vec<&'static str> {
        let mut v = vec![TargetCaps::DEFAULT.name];
        v.extend(self.names());
        v.extend(self.profiles.iter().map(|(n, _)| *n));
        v
    }

    /// A pipeline named `frontend`, `legalize` or `opt`, optionally `:NAME` with a name
    /// [`Registry::caps`] knows (without one: dxbc-spirv's choices).
    pub fn pipeline(&self, name: &str) -> Option<(PipelineKind, TargetCaps)> {
        let (base, caps) = name
            .split_once(':')
            .map_or((name, None), |(b, t)| (b, Some(t)));
        let kind = PipelineKind::from_name(base)?;
        let caps = match caps {
            Some(c) => self.caps(c)?,
            None => TargetCaps::DEFAULT,
        };
        Some((kind, caps))
    }
}
