//! The body of a compile request, as Compiler Explorer's API takes it.

use serde::Deserialize;
use serde_json::Value;

/// The body of `POST /api/compiler/<id>/compile`.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub struct CompileRequest {
    pub source: Option<String>,
    pub options: RequestOptions,
    pub lang: Option<String>,
    /// Files beside the source (headers, modules), as Compiler Explorer's API takes them.
    pub files: Vec<ExtraFile>,
}

/// A file written into the job folder beside the source.
#[derive(Deserialize, Debug)]
pub struct ExtraFile {
    pub filename: String,
    pub contents: String,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default, rename_all = "camelCase")]
pub struct RequestOptions {
    pub user_arguments: String,
    pub filters: Filters,
    pub execute_parameters: ExecuteParameters,
    pub compiler_options: Value,
}

#[derive(Deserialize, Default, Debug, Clone, Copy)]
#[serde(default)]
pub struct Filters {
    pub execute: bool,
    pub binary: bool,
    pub intel: bool,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub struct ExecuteParameters {
    pub args: ProgramArgs,
    pub stdin: String,
}

/// Program arguments: a list, or one string split shell-like.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
pub enum ProgramArgs {
    List(Vec<String>),
    Line(String),
}

impl Default for ProgramArgs {
    fn default() -> Self {
        ProgramArgs::List(Vec::new())
    }
}
