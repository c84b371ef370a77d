import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthSesame } from './support';

const { app } = synthSesame();

interface Finding {
  readonly rule: string;
  readonly path: string;
  readonly severity: string | undefined;
}

function findings(checks: AwsSolutionsChecks): Finding[] {
  return checks.validateScope(app).violations.flatMap((v) =>
    v.violatingResources.map((r) => ({
      rule: v.ruleName,
      path: r.constructPath ?? '?',
      severity: v.severity,
    })),
  );
}

/** Every acknowledgement recorded in the tree, with the construct it was made on. */
function acknowledgements(root: IConstruct): { id: string; reason: string; path: string }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) => Object.entries(m.data as Record<string, string>))
      .map(([id, reason]) => ({ id: id.replace(/^annotation::/i, ''), reason, path: c.node.path })),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged error or warning', () => {
    expect(findings(new AwsSolutionsChecks())).toEqual([]);
  });

  it('has a real reason on every acknowledgement, and no acknowledgement that silences nothing', () => {
    // The same checks with acknowledgements ignored: what each acknowledgement stands for.
    const unfiltered = new AwsSolutionsChecks();
    Object.assign(unfiltered, { isAcknowledged: () => false });
    const raw = findings(unfiltered);
    const acks = acknowledgements(app);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id).toMatch(/^AwsSolutions-/);
      expect(ack.reason.length, `${ack.id} on ${ack.path}`).toBeGreaterThanOrEqual(80);
      const silenced = raw.filter(
        (f) => f.rule === ack.id && (f.path === ack.path || f.path.startsWith(`${ack.path}/`)),
      );
      expect(silenced.length, `${ack.id} on ${ack.path} silences nothing`).toBeGreaterThan(0);
    }
  });
});
