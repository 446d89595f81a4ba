//! The provider's diagnosis beside toolprism's (SESSIONS.md section 3, "The provider's
//! diagnosis"): Anthropic compares a request with the one whose response
//! `diagnostics.previous_message_id` names and reports the earliest part that changed;
//! toolprism compares the same two requests (else the previous turn of the thread) by what it
//! read of them, and says whether both name the same part.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::chain::ChainPoint;
use super::read::TurnRead;
use super::{Analyzer, ModelRates, UNKNOWN_MODELS, compare};
use crate::trace::diagnosis::{Diagnosis, Part};

/// What toolprism keeps of a request that asked for diagnostics, for the request that names
/// its response next.
#[derive(Debug, Clone)]
pub(super) struct Fingerprint {
    pub(super) turn: usize,
    pub(super) model: u64,
    pub(super) tools: Arc<[u32]>,
    pub(super) present: bool,
    pub(super) system: u64,
    pub(super) messages: Vec<u64>,
}

impl Fingerprint {
    /// The earliest part of `now` that differs from `self`, in the provider's order (model,
    /// tools, system, messages; a message appended is no change).
    pub(super) fn first_change(&self, now: &Fingerprint) -> Option<Part> {
        if self.model != now.model {
            Some(Part::Model)
        } else if self.present != now.present || self.tools != now.tools {
            Some(Part::Tools)
        } else if self.system != now.system {
            Some(Part::System)
        } else if !now.messages.starts_with(&self.messages) {
            Some(Part::Messages)
        } else {
            None
        }
    }
}

/// One turn's diagnosis by the provider, beside toolprism's (`session --json`'s
/// `provider_diagnosis`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProviderDiagnosis {
    /// The provider's word: `none` (`diagnostics: null`), `pending`, `model_changed`,
    /// `system_changed`, `tools_changed`, `messages_changed`, `previous_message_not_found`,
    /// `unavailable`, `unrecognized`.
    pub reason: &'static str,
    /// The part it names (`null`: none).
    pub part: Option<Part>,
    /// Its estimate of the input tokens after the divergence (a magnitude, not a bill).
    pub cache_missed_input_tokens: Option<u64>,
    /// The turn toolprism compared this one with: the one whose response the request named,
    /// else the previous turn of its thread (`null`: neither is in the trace).
    pub compared_with: Option<usize>,
    /// The first part toolprism finds changed against that turn (`null`: none).
    pub toolprism: Option<Part>,
    /// Where toolprism finds the tools changed: the first tool entry that differs.
    pub tool: Option<String>,
    /// The first changed byte of the compact tools array.
    pub first_changed_byte: Option<usize>,
    /// Both name the same part (`null`: the provider diagnosed nothing to compare, or
    /// toolprism has no turn to compare with).
    pub agrees: Option<bool>,
}

impl ProviderDiagnosis {
    /// Both diagnoses in one line (the tool's name as the capture gives it: sanitize before
    /// a terminal).
    pub fn summary(&self) -> String {
        let mut text = format!("provider: {}", self.reason);
        if let Some(missed) = self.cache_missed_input_tokens {
            text.push_str(&format!(
                " ({} missed)",
                crate::text::thousands(missed as usize)
            ));
        }
        match (self.compared_with, self.toolprism) {
            (None, _) => text.push_str("; toolprism: no earlier turn"),
            (Some(turn), None) => text.push_str(&format!("; toolprism: none since turn {turn}")),
            (Some(turn), Some(part)) => {
                text.push_str(&format!("; toolprism: {} since turn {turn}", part.word()));
                if let Some(tool) = &self.tool {
                    text.push_str(&format!(" ({tool}"));
                    if let Some(byte) = self.first_changed_byte {
                        text.push_str(&format!(", byte {}", crate::text::thousands(byte)));
                    }
                    text.push(')');
                }
            }
        }
        text.push_str(match self.agrees {
            Some(true) => " (same part)",
            Some(false) => " (DIFFERENT part)",
            None => "",
        });
        text
    }
}

/// One turn where the two disagree.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiagnosisDisagreement {
    /// The turn.
    pub turn: usize,
    /// The provider's word.
    pub provider: &'static str,
    /// The part toolprism names (`null`: none changed).
    pub toolprism: Option<Part>,
}

/// Where the provider diagnosed, how often toolprism names the same part.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiagnosisAgreement {
    /// Turns whose response has `diagnostics`.
    pub turns: usize,
    /// Of those, the turns compared: the provider named a part, or found no divergence from
    /// the message the request named, and toolprism had that turn (or the thread's previous).
    pub diagnosed: usize,
    /// Of those, the turns where both name the same part (or both none).
    pub agree: usize,
    /// `agree / diagnosed` (`null` without any).
    pub rate: Option<f64>,
    /// Every disagreement (the first 1,000).
    pub disagreements: Vec<DiagnosisDisagreement>,
}

/// The disagreements kept in the report.
const KEPT: usize = 1000;

/// The requests that asked kept for a later request to name: the newest only (a client names
/// the response it just had), so a long session is held in bounded memory.
const ASKED_KEPT: usize = 256;

/// The session's diagnoses: the requests that asked (by their response id) and the tally.
#[derive(Debug, Default)]
pub(super) struct Diagnoses {
    asked: FxHashMap<u64, Fingerprint>,
    /// Their ids, oldest first.
    order: std::collections::VecDeque<u64>,
    turns: usize,
    diagnosed: usize,
    agree: usize,
    disagreements: Vec<DiagnosisDisagreement>,
}

/// What one turn brings to the comparison.
pub(super) struct DiagnosedTurn<'a> {
    pub(super) now: Fingerprint,
    /// The response's diagnosis.
    pub(super) diagnosis: Option<Diagnosis>,
    /// The request's `diagnostics`: `None` without one; `Some(None)` for a null
    /// `previous_message_id`; else its hash.
    pub(super) asked: Option<Option<u64>>,
    /// The response's id, hashed.
    pub(super) response: Option<u64>,
    /// The previous turn of its thread, as the chain kept it.
    pub(super) previous: Option<Fingerprint>,
    /// Every tool entry, for naming the first changed tool.
    pub(super) entries: &'a [compare::Entry],
}

impl Diagnoses {
    /// Compare one turn's diagnosis with toolprism's, and keep the request if it asked.
    pub(super) fn turn(&mut self, t: DiagnosedTurn<'_>) -> Option<ProviderDiagnosis> {
        let out = t.diagnosis.map(|diagnosis| self.judge(&t, diagnosis));
        if t.asked.is_some()
            && let Some(id) = t.response
        {
            if self.asked.insert(id, t.now).is_none() {
                self.order.push_back(id);
            }
            if self.order.len() > ASKED_KEPT
                && let Some(oldest) = self.order.pop_front()
            {
                self.asked.remove(&oldest);
            }
        }
        out
    }

    fn judge(&mut self, t: &DiagnosedTurn<'_>, diagnosis: Diagnosis) -> ProviderDiagnosis {
        self.turns += 1;
        let named = t.asked.flatten().and_then(|id| self.asked.get(&id));
        let before = named.or(t.previous.as_ref());
        let toolprism = before.and_then(|b| b.first_change(&t.now));
        let (tool, byte) = match (before, toolprism) {
            (Some(b), Some(Part::Tools)) => {
                let change = compare::compare(
                    t.entries,
                    (&b.tools, b.present),
                    (&t.now.tools, t.now.present),
                );
                (change.first_changed_entry, change.first_changed_byte)
            }
            _ => (None, None),
        };
        // A part named, or no divergence from a message the request named: comparable.
        let comparable = match diagnosis {
            Diagnosis::Changed { .. } => true,
            Diagnosis::Clear => named.is_some(),
            _ => false,
        };
        let agrees = (comparable && before.is_some()).then(|| diagnosis.part() == toolprism);
        if let Some(agrees) = agrees {
            self.diagnosed += 1;
            self.agree += usize::from(agrees);
            if !agrees && self.disagreements.len() < KEPT {
                self.disagreements.push(DiagnosisDisagreement {
                    turn: t.now.turn,
                    provider: diagnosis.word(),
                    toolprism,
                });
            }
        }
        ProviderDiagnosis {
            reason: diagnosis.word(),
            part: diagnosis.part(),
            cache_missed_input_tokens: diagnosis.missed(),
            compared_with: before.map(|b| b.turn),
            toolprism,
            tool,
            first_changed_byte: byte,
            agrees,
        }
    }

    /// As the report gives it (`None`: no response had `diagnostics`).
    pub(super) fn report(&self) -> Option<DiagnosisAgreement> {
        (self.turns > 0).then(|| DiagnosisAgreement {
            turns: self.turns,
            diagnosed: self.diagnosed,
            agree: self.agree,
            rate: (self.diagnosed > 0)
                .then(|| (self.agree as f64 / self.diagnosed as f64 * 10_000.0).round() / 10_000.0),
            disagreements: self.disagreements.clone(),
        })
    }
}

impl Analyzer<'_> {
    /// What the tables know of the turn's model; a model they do not name is listed.
    /// What the tables know of the turn's model, and the provider's diagnosis beside
    /// toolprism's.
    pub(super) fn beside(
        &mut self,
        read: &TurnRead<'_>,
        point: &ChainPoint,
        thread: usize,
    ) -> (ModelRates, Option<ProviderDiagnosis>) {
        (self.model_rates(read), self.diagnose(read, point, thread))
    }

    fn model_rates(&mut self, read: &TurnRead<'_>) -> ModelRates {
        let rates = super::prices::model_rates(read.who.provider, &read.model);
        if !rates.known && read.who.provider.rules().is_some() {
            let known = self
                .unknown_models
                .iter()
                .position(|(m, _)| *m == *read.model);
            match known {
                Some(at) => self.unknown_models[at].1 += 1,
                None if self.unknown_models.len() < UNKNOWN_MODELS => {
                    self.unknown_models.push((read.model.to_string(), 1));
                }
                None => {}
            }
        }
        rates
    }

    /// The provider's diagnosis of this turn beside toolprism's, against the turn whose
    /// response the request names (else the previous turn of its thread).
    fn diagnose(
        &mut self,
        read: &TurnRead<'_>,
        point: &ChainPoint,
        thread: usize,
    ) -> Option<ProviderDiagnosis> {
        let usage = point.usage?;
        if usage.diagnosis.is_none() && read.asked.is_none() {
            return None;
        }
        let fingerprint = |p: &ChainPoint| Fingerprint {
            turn: p.turn,
            model: p.model,
            tools: Arc::clone(&p.tools),
            present: p.present,
            system: p.system,
            messages: p.messages.clone(),
        };
        let previous = usage
            .diagnosis
            .and(self.threads[thread].chain.as_ref())
            .map(fingerprint);
        self.diagnoses.turn(DiagnosedTurn {
            now: fingerprint(point),
            diagnosis: usage.diagnosis,
            asked: read.asked,
            response: usage.response_id,
            previous,
            entries: self.entries.all(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(turn: usize, messages: Vec<u64>) -> Fingerprint {
        Fingerprint {
            turn,
            model: 1,
            tools: Arc::from(vec![1u32, 2]),
            present: true,
            system: 7,
            messages,
        }
    }

    #[test]
    fn parts_in_the_providers_order_and_a_bounded_memory() {
        let before = print(1, vec![1, 2]);
        assert_eq!(before.first_change(&print(2, vec![1, 2, 3])), None);
        assert_eq!(
            before.first_change(&print(2, vec![9, 2, 3])),
            Some(Part::Messages)
        );
        let mut system = print(2, vec![9]);
        system.system = 8;
        assert_eq!(before.first_change(&system), Some(Part::System));
        let mut tools = system.clone();
        tools.tools = Arc::from(vec![2u32, 1]);
        assert_eq!(before.first_change(&tools), Some(Part::Tools));
        tools.model = 2;
        assert_eq!(before.first_change(&tools), Some(Part::Model));

        let mut diagnoses = Diagnoses::default();
        for n in 0..300u64 {
            diagnoses.turn(DiagnosedTurn {
                now: print(n as usize, vec![n]),
                diagnosis: None,
                asked: Some(None),
                response: Some(n),
                previous: None,
                entries: &[],
            });
        }
        assert_eq!(diagnoses.asked.len(), ASKED_KEPT);
        assert!(!diagnoses.asked.contains_key(&0) && diagnoses.asked.contains_key(&299));
    }
}
