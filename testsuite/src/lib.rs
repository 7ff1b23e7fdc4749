//! irc test support.
