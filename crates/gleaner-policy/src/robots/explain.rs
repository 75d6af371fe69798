//! The lines `gleaner robots explain` prints under its verdict: the group, the path as
//! matched, the deciding rule, and the pacing and notes the file adds.

use super::{AgentRules, MAX_PARSED_BYTES, RobotsTxt, normalise_path};

impl AgentRules {
    /// Why `path_and_query` is allowed or not under these rules of `robots`, one line per
    /// finding (the group, the path normalised, the decision, the file's pacing).
    pub fn explain(&self, robots: &RobotsTxt, path_and_query: &str) -> Vec<String> {
        let path = path_and_query;
        let mut lines = vec![
            format!("group:     {}", self.selection()),
            format!("path:      {path} (normalised: {})", normalise_path(path)),
            format!("decision:  {}", self.check(path)),
        ];
        if let Some((delay, line)) = self.crawl_delay() {
            lines.push(format!(
                "crawl-delay: {delay} s (line {line}; honoured only when slower than our spacing)"
            ));
        }
        if let Some((gap, line)) = self.pace().rate_gap() {
            lines.push(format!(
                "request-rate: at least {} s between requests (line {line}; honoured only when slower than our spacing)",
                gap.as_secs_f64()
            ));
        }
        for window in self.pace().windows() {
            lines.push(format!(
                "window:    requests start only inside {window} (or another stated window)"
            ));
        }
        if self.disallows_all() {
            lines.push(
                "note:      these rules disallow everything: the crawler asks this site for robots.txt alone"
                    .to_owned(),
            );
        }
        if robots.truncated {
            lines.push(format!(
                "note:      the file is larger than {MAX_PARSED_BYTES} bytes; the rest was ignored"
            ));
        }
        lines
    }
}
