//! `irc`: the embedding API (stub; see the driver issue work).
