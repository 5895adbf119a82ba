//! The documentation calib generates from its clap definitions: shell
//! completions (`calib completions`) and manual pages (`calib man`), and the
//! pages checked in under docs/man/, which must be exactly what `calib man`
//! prints now (so a changed flag or help text cannot leave them stale).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clap::CommandFactory;
use common::{repo_file, stderr, stdout};

fn calib(args: &[&str]) -> Output {
    common::calib().args(args).output().unwrap()
}

/// The subcommands calib's parser knows, read from the library's definitions.
fn subcommands() -> Vec<String> {
    calib::cli::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

fn man_dir() -> PathBuf {
    repo_file("docs/man")
}

const REGENERATE: &str = "regenerate them with `cargo run -- man --out-dir docs/man` \
    (and delete the page of a subcommand that is gone)";

#[test]
fn completions_for_bash_source_cleanly_and_complete_flags() {
    let out = calib(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("calib.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    // Source it as a user would, then ask it what `calib fit --per<TAB>` offers.
    let probe = format!(
        "set -e; source '{}'; complete -p calib; \
         COMP_WORDS=(calib fit --per); COMP_CWORD=2; _calib calib --per fit; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let run = Command::new("bash").args(["-c", &probe]).output().unwrap();
    let stdout = stdout(&run);
    assert!(run.status.success(), "{}{}", stdout, stderr(&run));
    assert!(stderr(&run).is_empty(), "{}", stderr(&run));
    assert!(stdout.contains("complete"), "{stdout}");
    assert!(stdout.lines().any(|l| l == "--per-unit"), "{stdout}");
}

#[test]
fn completions_for_every_shell_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = calib(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for sub in subcommands() {
            assert!(script.contains(&sub), "{shell}: no `{sub}` in\n{script}");
        }
    }
}

#[test]
fn completions_for_an_unknown_shell_is_a_usage_error() {
    let out = calib(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bash"), "{}", stderr(&out));
}

/// The `*.1` files of a folder, by name.
fn pages_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut pages: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "1"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    pages.sort();
    pages
}

#[test]
fn checked_in_man_pages_are_what_calib_man_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = calib(&["man", "--out-dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let generated = pages_in(dir.path());
    let checked_in = pages_in(&man_dir());
    let names = |pages: &[(String, Vec<u8>)]| pages.iter().map(|p| p.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&checked_in), names(&generated), "{REGENERATE}");
    for ((name, old), (_, new)) in checked_in.iter().zip(&generated) {
        assert!(old == new, "docs/man/{name} is stale; {REGENERATE}");
    }
    // One page per command: calib's own and one per subcommand, nested ones
    // (calib-grid-show) included, as their parents' pages list them.
    fn count(command: &clap::Command) -> usize {
        command.get_subcommands().map(|c| 1 + count(c)).sum()
    }
    assert_eq!(generated.len(), 1 + count(&calib::cli::Cli::command()));
    assert!(names(&generated).contains(&"calib-grid-show.1".to_string()));
}

#[test]
fn man_prints_one_subcommands_page_as_the_folder_holds_it() {
    for sub in subcommands() {
        let out = calib(&["man", &sub]);
        assert_eq!(out.status.code(), Some(0), "{sub}: {}", stderr(&out));
        let page = std::fs::read(man_dir().join(format!("calib-{sub}.1"))).unwrap();
        assert!(out.stdout == page, "calib man {sub}; {REGENERATE}");
    }
    let out = calib(&["man"]);
    assert!(out.stdout == std::fs::read(man_dir().join("calib.1")).unwrap());
}

#[test]
fn man_out_dir_must_exist() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-folder");
    let out = calib(&["man", "--out-dir", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no-such-folder"));
    assert!(!missing.exists());
}

/// A page that cannot be written (a folder where calib-fit.1 goes) is found
/// before any page is written: the set is left as it was.
#[test]
fn man_out_dir_writes_no_page_when_one_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("calib-fit.1")).unwrap();
    let out = calib(&["man", "--out-dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("calib-fit.1"), "{}", stderr(&out));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["calib-fit.1"]);
}

#[test]
fn man_pages_format_without_warnings() {
    // groff comes with man-db on Debian; a machine without it cannot check this.
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("groff not found: man page formatting not checked");
        return;
    }
    for entry in std::fs::read_dir(man_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "1") {
            continue;
        }
        let out = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", path.display());
        assert!(
            out.stderr.is_empty(),
            "{}: {}",
            path.display(),
            stderr(&out)
        );
    }
}

#[test]
fn man_for_an_unknown_subcommand_names_the_known_ones() {
    let out = calib(&["man", "fitt"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`fitt`"), "{err}");
    for sub in subcommands() {
        assert!(err.contains(&sub), "{err}");
    }
}
