"""`rules` and `explain`: the rule reference on the command line."""
from __future__ import annotations

import json
import sys

import click


@click.command()
@click.argument("rule", required=False)
@click.option("--format", "--output-format", "fmt", type=click.Choice(("text", "json")), default="text",
              show_default=True)
@click.pass_context
def rules(ctx, rule, fmt):
    """List every rule: code, name, category, severity, summary; `rules RULE` explains one (as `explain`)."""
    from leapp_codemod.report.ruledocs import rules_json, rules_table
    from leapp_codemod.rules import ALL_RULES
    if rule is not None:
        ctx.invoke(explain, rule=rule)
        return
    if fmt == "json":
        click.echo(json.dumps(rules_json(ALL_RULES), indent=2, ensure_ascii=False))
    else:
        click.echo(rules_table(ALL_RULES).rstrip("\n"))


@click.command()
@click.argument("rule")
def explain(rule):
    """Explain RULE (a code like LCM101 or a name like item-tolist): what it does, why it breaks a LEAPP
    export, how to fix it."""
    from leapp_codemod.report.ruledocs import explain as explain_rule
    from leapp_codemod.rules import get_rule
    found = get_rule(rule)
    if found is None:
        from leapp_codemod.rules import ALL_RULES
        from leapp_codemod.settings import did_you_mean
        known = [word for r in ALL_RULES for word in (r.code, r.name)]
        click.echo(f"leapp-codemod: error: unknown rule '{rule}'{did_you_mean(rule, known)} (see `leapp-codemod rules`)", err=True)
        sys.exit(2)
    click.echo(explain_rule(found).rstrip("\n"))
