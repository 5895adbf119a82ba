//! From the fit's own types to the model schema ([`crate::model`]): the one
//! place where the fit's estimates become what a model file states.

use super::lsq::FormFit;
use super::select::{Choice, FormScore, Selection};
use crate::forms::{Covariance, Form, Params};
use crate::model::{ScoreRecord, SelectionMethod, SelectionRecord};
use crate::projection::{Curve, FitUncertainty};

/// One fitted form as the fit keeps it (its covariance rescaled to the
/// within-run variance, see [`super`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CurveFit {
    pub form: Form,
    pub params: Params,
    pub startup_fitted: bool,
    /// Covariance of (startup, a, b, h).
    pub cov: Covariance,
    /// Residual degrees of freedom of the fit (0 when the fit is exact).
    pub df: f64,
}

impl From<&FormFit> for CurveFit {
    fn from(f: &FormFit) -> Self {
        CurveFit {
            form: f.form,
            params: f.params,
            startup_fitted: f.startup_fitted,
            cov: f.cov,
            df: f.df,
        }
    }
}

impl From<&CurveFit> for Curve {
    /// A fit without residual degrees of freedom estimated no variance (its
    /// covariance is zero): the schema says so with no `fit` at all.
    fn from(f: &CurveFit) -> Self {
        Curve {
            form: f.form,
            params: f.params,
            fit: (f.df > 0.0).then_some(FitUncertainty {
                covariance: f.cov,
                df: f.df,
            }),
            weight: 1.0,
        }
    }
}

impl From<Selection> for SelectionMethod {
    fn from(s: Selection) -> Self {
        match s {
            Selection::Holdout => SelectionMethod::Holdout,
            Selection::ProbeTooShort => SelectionMethod::ProbeTooShort,
            Selection::TwoLengths => SelectionMethod::TwoLengths,
            Selection::OneLength => SelectionMethod::OneLength,
        }
    }
}

impl From<&FormScore> for ScoreRecord {
    /// A form that predicted no positive duration for the held-out part has an
    /// infinite score: the record says `null` (JSON has no infinity).
    fn from(s: &FormScore) -> Self {
        let finite = |x: f64| x.is_finite().then_some(x);
        ScoreRecord {
            model: s.form,
            score: finite(s.score),
            se: finite(s.se),
            bias: finite(s.bias),
            plausible: s.plausible,
        }
    }
}

/// How the form was chosen, for the record in the model file.
pub fn selection_record(choice: &Choice) -> SelectionRecord {
    SelectionRecord {
        method: choice.selection.into(),
        runner_up: choice.runner_up,
        scores: choice.scores.iter().map(ScoreRecord::from).collect(),
    }
}
