"""The `workbench` command line. Headless: only `open` and `demo` (workbench/cli/tui.py) import
the TUI, lazily.

A command `workbench X` lives in `workbench/cli/<section>.py` (docs/ARCHITECTURE.md maps them)
and is registered by one line in COMMANDS below. Errors a user can cause are WorkbenchError and
are handled in one place, `WorkbenchGroup.invoke`: a readable message on stderr and exit status 2
(bad input or state) or 1 (a failed external call), never a traceback."""

from __future__ import annotations

import logging

import click

from workbench.cli import access, collect, collide, diagnosis, explain, insight, llm, project, report, rerank, sweeps, triage, tui, tune
from workbench.cli.common import err_console
from workbench.errors import WorkbenchError, os_error
from workbench.session import options
from workbench.safe_text import markup_escaped, visible


def report_error(exc: WorkbenchError) -> None:
    err_console.print(f"[red]error:[/] {markup_escaped(exc.title)}", highlight=False)
    # plain: file:line: field lines must not be wrapped or styled; data in them shown as text
    click.echo(visible(str(exc)), err=True)
    if exc.hint:
        err_console.print(f"[dim]{markup_escaped(exc.hint)}[/]", highlight=False)


class WorkbenchGroup(click.Group):
    """The one CLI handler of user-causable errors, around every subcommand."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except WorkbenchError as exc:
            report_error(exc)
            ctx.exit(exc.exit_code)
        except OSError as exc:  # read-only, full disk, a folder where a file belongs, permission
            converted = os_error(exc)
            report_error(converted)
            ctx.exit(converted.exit_code)
        finally:
            options.set_lock_timeout(None)  # --lock-timeout is the one command's


def _seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not value >= 0:  # NaN and negatives
        raise click.BadParameter(f"{value}: not a number of seconds ≥ 0")
    return value


@click.group(cls=WorkbenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nearmiss-workbench")
@click.option("--lock-timeout", type=float, default=None, callback=_seconds, metavar="SECONDS",
              help=f"How long a command that writes the project's files waits while another holds them "
                   f"(default: ${options.LOCK_TIMEOUT_ENV}, else {options.DEFAULT_LOCK_TIMEOUT_S:g}); 0: give up at once.")
def main(lock_timeout: float | None) -> None:
    """Nearmiss Workbench: is a wrong answer an evidence-access or an evidence-use failure?"""
    options.set_lock_timeout(lock_timeout)
    _show_recoveries()


class _RecoveryNotice(logging.Handler):
    """Damaged derived state set aside and rebuilt: one warning line on stderr, never wrapped."""

    def emit(self, record: logging.LogRecord) -> None:
        err_console.print(f"[yellow]warning:[/] {markup_escaped(record.getMessage(), one_line=True)}",
                          highlight=False, soft_wrap=True)


def _show_recoveries() -> None:
    log = logging.getLogger("workbench.recovery")
    if not any(isinstance(h, _RecoveryNotice) for h in log.handlers):
        log.addHandler(_RecoveryNotice(level=logging.INFO))
        log.setLevel(logging.INFO)


# Every command, by section: one line each.
COMMANDS: list[click.Command] = [
    project.init, project.import_, project.ladder, project.tiers, project.index, project.query_sets_command,
    access.eval_, access.export_trec,
    rerank.rerank_command, tune.tune_command,
    llm.run_command, llm.serve_command,
    diagnosis.diagnose_command, diagnosis.compare_command, explain.explain_command,
    insight.stealers_command, insight.unjudged_command, insight.positions_command,
    report.report_command,
    collide.collide_command, collide.collide_score_command, collide.export_eval_set_command,
    triage.import_run, triage.import_answers, triage.add_query, triage.export_labels, triage.import_traces,
    collect.collect_command,
    sweeps.sweep,
    tui.open_, tui.demo,
]
for command in COMMANDS:
    main.add_command(command)
