//! Calibration and agreement: how many tokens the provider bills per token of the exact count
//! (SESSIONS.md section 3, "Calibration"), and how often the modelled cache agrees with the
//! one the provider reported ("Checked against the bill").

use rustc_hash::FxHashMap;

use super::{Agreement, Calibration, CalibrationGroup, round2};

/// The median of many ratios, each weighted by its turn's exact prompt tokens, kept as
/// distinct values with their weights: a trace of millions of turns that repeat a request
/// holds a handful. Weighted, because a cost is a sum of prompts: a prompt of a few tokens,
/// whose ratio is mostly the provider's fixed framing, must not weigh as much as a long one.
#[derive(Debug, Default)]
pub(super) struct Ratios {
    counts: FxHashMap<u64, usize>,
    len: usize,
}

impl Ratios {
    /// One turn's ratio, weighing `weight` (its exact prompt tokens; at least 1).
    pub(super) fn push(&mut self, ratio: f64, weight: usize) {
        *self.counts.entry(ratio.to_bits()).or_default() += weight.max(1);
        self.len += 1;
    }

    /// The weighted median: the median of every value repeated as many times as it weighs,
    /// as [`median`] gives it.
    pub(super) fn median(&self) -> Option<f64> {
        let mut values: Vec<(f64, usize)> = self
            .counts
            .iter()
            .map(|(&bits, &n)| (f64::from_bits(bits), n))
            .collect();
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        counted_median(&values)
    }

    /// The robust median: with [`ROBUST_TURNS`] ratios or more, those more than twice or less
    /// than half the median are left out and the median is taken again, so one turn whose
    /// bill holds prompts the capture does not cannot move it.
    pub(super) fn robust_median(&self) -> Option<f64> {
        let median = self.median()?;
        if self.len < ROBUST_TURNS {
            return Some(median);
        }
        let mut kept: Vec<(f64, usize)> = self
            .counts
            .iter()
            .map(|(&bits, &n)| (f64::from_bits(bits), n))
            .filter(|&(r, _)| r <= 2.0 * median && r >= 0.5 * median)
            .collect();
        kept.sort_by(|a, b| a.0.total_cmp(&b.0));
        counted_median(&kept).or(Some(median))
    }
}

/// What a turn whose bill no tokenizer explains is said to be.
pub(super) const SCRUBBED: &str = "the trace does not hold what was billed: the body was scrubbed \
    or redacted by its recorder";

/// Provider tokens per counted token past which no tokenizer explains a bill: tokenizers of
/// other families count the same text within about 1.6 times o200k's, and a short prompt's
/// fixed framing (a built-in tool's definition, a provider's own preamble) stays under
/// [`SCRUBBED_TOKENS`].
const SCRUBBED_RATIO: f64 = 8.0;

/// Provider tokens a bill must hold beyond what the ratio of a tokenizer explains
/// ([`SCRUBBED_RATIO`] is then reached by a long missing text, not a short prompt's framing).
const SCRUBBED_TOKENS: f64 = 4096.0;

/// Whether a turn's ratio (`ratio` provider tokens per each of its `tokens` counted) says the
/// trace does not hold what was billed: a body its recorder scrubbed (a system prompt replaced
/// by a placeholder while the provider billed 18,131 tokens for it).
pub(super) fn scrubbed(ratio: f64, tokens: usize) -> bool {
    let billed = ratio * tokens as f64;
    ratio > SCRUBBED_RATIO && billed - 2.0 * tokens as f64 > SCRUBBED_TOKENS
}

/// Ratios from this many turns on are filtered before their median ([`Ratios::robust_median`]).
pub(super) const ROBUST_TURNS: usize = 3;

/// The median of sorted distinct values with their counts.
fn counted_median(values: &[(f64, usize)]) -> Option<f64> {
    let len: usize = values.iter().map(|v| v.1).sum();
    if len == 0 {
        return None;
    }
    let at = |index: usize| -> f64 {
        let mut seen = 0;
        for &(value, n) in values {
            seen += n;
            if index < seen {
                return value;
            }
        }
        values.last().map_or(0.0, |v| v.0)
    };
    let mid = len / 2;
    Some(if len % 2 == 1 {
        at(mid)
    } else {
        (at(mid - 1) + at(mid)) / 2.0
    })
}

/// A ratio as the report gives it, to four decimals.
fn rounded(ratio: f64) -> f64 {
    (ratio * 10_000.0).round() / 10_000.0
}

/// A calibration group: the provider a turn met and the model its request names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct GroupKey {
    pub(super) provider: &'static str,
    pub(super) model: String,
}

/// What the provider billed for input over the session, in input tokens (reads and writes at
/// their prices).
#[derive(Debug, Clone, Copy)]
struct Billed {
    tokens: f64,
    /// Every turn of the chain had usage: without, the sum is not the session's.
    complete: bool,
}

impl Default for Billed {
    fn default() -> Billed {
        Billed {
            tokens: 0.0,
            complete: true,
        }
    }
}

/// Turns whose bill holds tokens the request does not: the provider tokens billed (less
/// Claude's tool-use prompt) and the exact tokens of the requests.
#[derive(Debug, Default, Clone, Copy)]
struct Unseen {
    billed: f64,
    /// What they cost, in input tokens (reads and writes at the provider's prices).
    cost: f64,
    exact: usize,
}

/// A group's bill as a fixed part per request plus a part per exact token: a provider
/// adds tokens no request holds (a hidden system prompt, a built-in tool's definition, each
/// message's framing), which a ratio alone spreads over the prompt's tokens, so a short
/// prompt's ratio says little of a long one's.
#[derive(Debug, Default)]
struct Line {
    /// The last qualifying turn's billed and exact tokens.
    last: Option<(f64, usize)>,
    /// Slopes between consecutive qualifying turns of different lengths, weighted by how
    /// far apart their lengths are.
    slopes: Ratios,
    /// Each qualifying turn's billed and exact tokens (the first [`LINE_POINTS`]).
    points: Vec<(f64, usize)>,
    /// Turns of the chain in the group, with usage or not.
    turns: usize,
    /// What its turns with usage billed, in input tokens (reads and writes at their prices),
    /// and in provider tokens: the price of a fixed token is that mix.
    cost: f64,
    tokens: f64,
}

/// Points kept per group for the fixed part: enough for any session, bounded for a stream.
const LINE_POINTS: usize = 4096;

/// Two lengths closer than this give no slope: the bill's own noise would be all of it.
const LINE_SPAN: usize = 32;

impl Line {
    fn push(&mut self, billed: f64, exact: usize) {
        if let Some((b0, e0)) = self.last
            && exact.abs_diff(e0) >= LINE_SPAN
        {
            let slope = (billed - b0) / (exact as f64 - e0 as f64);
            if (0.2..=5.0).contains(&slope) {
                self.slopes.push(slope, exact.abs_diff(e0));
            }
        }
        self.last = Some((billed, exact));
        if self.points.len() < LINE_POINTS {
            self.points.push((billed, exact));
        }
    }

    /// The fixed part per request and the part per token, where the turns tell them apart
    /// and the fixed part is there (`None`: the ratio alone).
    fn fit(&self) -> Option<(f64, f64)> {
        let slope = self.slopes.robust_median()?;
        let fixed = median_of(
            self.points
                .iter()
                .map(|&(billed, exact)| billed - slope * exact as f64)
                .collect(),
        )?;
        (fixed >= 1.0).then_some((fixed, slope))
    }
}

/// How a group's exact cost becomes provider tokens: times `per_token`, plus `fixed` input
/// tokens over the session (the fixed part of each of its requests, at its bill's mix).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct GroupFactor {
    pub(super) per_token: f64,
    pub(super) fixed: f64,
}

/// The session's calibration as it grows turn by turn.
#[derive(Debug, Default)]
pub(super) struct Calibrator {
    /// Per group (by id): its bill as a fixed part and a part per token.
    lines: Vec<Line>,
    /// Observed / exact prompt tokens, per qualifying turn.
    ratios: Ratios,
    /// The same per provider and model, for every group a turn of the chain met (by id, in
    /// order of first sight), with or without a qualifying turn.
    groups: Vec<(GroupKey, Ratios)>,
    ids: FxHashMap<GroupKey, usize>,
    /// Per group (by id): what its turns whose bill holds tokens the request does not
    /// (uncounted media, a server-side tool, a stored response) billed, and their exact count.
    unseen: Vec<Unseen>,
    /// Turns with usage left out of calibration.
    excluded: usize,
    billed: Billed,
}

impl Calibrator {
    /// The group of one turn of the chain (its id, made on first sight), counted.
    pub(super) fn group(&mut self, key: GroupKey) -> usize {
        let id = match self.ids.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.groups.len();
                self.groups.push((key.clone(), Ratios::default()));
                self.lines.push(Line::default());
                self.ids.insert(key, id);
                id
            }
        };
        self.lines[id].turns += 1;
        id
    }

    /// Each group's factors, by id ([`GroupFactor`]): the fixed part where its turns tell it
    /// apart, else its ratio alone; `None` without any ratio.
    pub(super) fn group_factors(&self) -> Option<Vec<GroupFactor>> {
        let ratios = self.group_ratios()?;
        Some(
            ratios
                .into_iter()
                .zip(&self.lines)
                .map(|(ratio, line)| match line.fit() {
                    Some((fixed, slope)) if line.tokens > 0.0 => GroupFactor {
                        per_token: slope,
                        fixed: fixed * line.turns as f64 * (line.cost / line.tokens),
                    },
                    _ => GroupFactor {
                        per_token: ratio,
                        fixed: 0.0,
                    },
                })
                .collect(),
        )
    }

    /// The ratio for a turn of `group` without its own: the group's robust median so far,
    /// else the session's.
    pub(super) fn ratio_for(&self, group: usize) -> Option<f64> {
        self.groups
            .get(group)
            .and_then(|g| g.1.robust_median())
            .or_else(|| self.ratios.robust_median())
    }

    /// A qualifying turn's ratio, and its exact prompt tokens.
    pub(super) fn push(&mut self, group: usize, ratio: f64, tokens: usize) {
        self.ratios.push(ratio, tokens);
        if let Some(g) = self.groups.get_mut(group) {
            g.1.push(ratio, tokens);
        }
        if let Some(line) = self.lines.get_mut(group) {
            line.push(ratio * tokens as f64, tokens);
        }
    }

    /// The ratio each group's cost is calibrated by, by group id, as the report gives it: the
    /// group's own, else (no qualifying turn of its own) the session's; `None` without any.
    pub(super) fn group_ratios(&self) -> Option<Vec<f64>> {
        let session = rounded(self.ratios.robust_median()?);
        Some(
            self.groups
                .iter()
                .map(|(_, r)| r.robust_median().map_or(session, rounded))
                .collect(),
        )
    }

    /// A turn with usage left out.
    pub(super) fn exclude(&mut self) {
        self.excluded += 1;
    }

    /// A turn of `group` whose bill holds tokens its request does not: `billed` provider
    /// tokens costing `cost` input tokens, for a request of `exact` tokens.
    pub(super) fn unseen(&mut self, group: usize, (billed, cost): (f64, f64), exact: usize) {
        if self.unseen.len() <= group {
            self.unseen.resize(group + 1, Unseen::default());
        }
        let unseen = &mut self.unseen[group];
        unseen.billed += billed;
        unseen.cost += cost;
        unseen.exact += exact;
    }

    /// What the bill holds beyond the requests (media the trace cannot count, a server-side
    /// tool's own calls, a stored response), in input tokens: the share of those turns' bill
    /// their requests (at their group's ratio) do not account for, at the bill's own mix of
    /// reads and writes. Every strategy pays it alike: no tool projection changes it.
    pub(super) fn unseen_tokens(&self) -> f64 {
        let Some(ratios) = self.group_ratios() else {
            return 0.0;
        };
        self.unseen
            .iter()
            .zip(ratios)
            .filter(|(u, _)| u.billed > 0.0)
            .map(|(u, ratio)| (1.0 - u.exact as f64 * ratio / u.billed).max(0.0) * u.cost)
            .sum()
    }

    /// What one turn of `group` with usage billed for input: `cost` input tokens (reads and
    /// writes at their prices) for a prompt of `tokens` provider tokens.
    pub(super) fn bill(&mut self, group: usize, cost: f64, tokens: f64) {
        self.billed.tokens += cost;
        if let Some(line) = self.lines.get_mut(group) {
            line.cost += cost;
            line.tokens += tokens;
        }
    }

    /// A turn of the chain without usage: the bill is no longer the session's.
    pub(super) fn unbilled(&mut self) {
        self.billed.complete = false;
    }

    /// The session's calibration: the median over the qualifying turns, the same per provider
    /// and model, and what the provider billed for input (`with_usage`: some turn had usage).
    pub(super) fn report(&self, with_usage: bool) -> Option<Calibration> {
        let session = self.ratios.robust_median().map(rounded)?;
        let mut groups: Vec<CalibrationGroup> = self
            .groups
            .iter()
            .zip(&self.lines)
            .map(|((key, ratios), line)| {
                let own = ratios.robust_median().map(rounded);
                let fit = line.fit();
                CalibrationGroup {
                    provider: key.provider,
                    model: key.model.clone(),
                    ratio: own.unwrap_or(session),
                    turns: ratios.len,
                    fallback: own.is_none(),
                    fixed: fit.map(|(fixed, _)| fixed.round()),
                    per_token: fit.map(|(_, slope)| rounded(slope)),
                }
            })
            .collect();
        groups.sort_by(|a, b| (a.provider, &a.model).cmp(&(b.provider, &b.model)));
        let billed = (self.billed.complete && with_usage).then_some(round2(self.billed.tokens));
        Some(Calibration {
            ratio: session,
            turns: self.ratios.len,
            excluded: self.excluded,
            groups,
            billed,
            unseen: round2(self.unseen_tokens()),
        })
    }
}

/// Turns with usage, those judged, and those that agree.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct AgreementCount {
    /// Turns with usage.
    pub(super) turns: usize,
    /// Of those, the turns judged.
    pub(super) judged: usize,
    /// Of those, the turns that agree.
    pub(super) agree: usize,
}

impl AgreementCount {
    /// As the report gives it.
    pub(super) fn report(self) -> Agreement {
        let AgreementCount {
            turns,
            judged,
            agree,
        } = self;
        Agreement {
            turns,
            judged,
            agree,
            rate: (judged > 0)
                .then(|| (agree as f64 / judged as f64 * 10_000.0).round() / 10_000.0),
        }
    }
}

/// The median of some numbers (`None` for none).
fn median_of(values: Vec<f64>) -> Option<f64> {
    median(values)
}

/// The median of some numbers (`None` for none).
fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_counted_ratios_is_the_median_of_all() {
        let cases: [&[f64]; 6] = [
            &[],
            &[1.5],
            &[2.0, 1.0],
            &[1.0, 1.0, 1.0, 3.0],
            &[0.9, 1.1, 0.9, 1.2, 1.1, 0.9, 1.3],
            &[1.25, 0.75, 1.25, 0.75, 1.0, 1.0, 2.0, 0.5],
        ];
        for values in cases {
            let mut ratios = Ratios::default();
            for &v in values {
                ratios.push(v, 1);
            }
            assert_eq!(ratios.median(), median(values.to_vec()), "{values:?}");
            assert_eq!(ratios.len, values.len());
        }
        // A million equal ratios are one value, not a million.
        let mut ratios = Ratios::default();
        for _ in 0..1_000_000 {
            ratios.push(1.0625, 1);
        }
        assert_eq!(ratios.counts.len(), 1);
        assert_eq!(ratios.median(), Some(1.0625));
        // A prompt of 30 tokens weighs less than one of 176.
        let mut weighted = Ratios::default();
        weighted.push(6.5, 30);
        weighted.push(1.9, 176);
        assert_eq!(weighted.median(), Some(1.9));
        assert_eq!(weighted.len, 2);
    }

    /// A built-in tool's definition the provider adds (1,210 tokens) and a part per token of
    /// 1.0: the fixed part is found, where a ratio would be 61.5 on the short turn.
    #[test]
    fn a_fixed_part_per_request_is_told_apart() {
        let mut line = Line::default();
        line.push(1230.0, 20);
        line.push(1332.0, 122);
        let (fixed, slope) = line.fit().unwrap();
        assert!((slope - 1.0).abs() < 1e-9, "{slope}");
        assert!((fixed - 1210.0).abs() < 1e-6, "{fixed}");
        // Lengths too close to tell: the ratio alone.
        let mut close = Line::default();
        close.push(100.0, 50);
        close.push(110.0, 60);
        assert_eq!(close.fit(), None);
        // No fixed part: the ratio alone.
        let mut proportional = Line::default();
        proportional.push(200.0, 100);
        proportional.push(600.0, 300);
        assert_eq!(proportional.fit(), None);
    }
}
