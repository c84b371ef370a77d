#!/usr/bin/env node
/**
 * The CDK app: `cdk synth` / `cdk deploy --all` [-c stage=prod] [-c deletionProtection=false].
 * Stacks are `Sesame-<stage>-Stateful` and `Sesame-<stage>-Stateless`; AWS Solutions checks
 * (cdk-nag) run on every synth and fail it on an unacknowledged finding.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addSesameStacks } from '../lib/app';
import { stageConfigFromContext } from '../lib/config';

const app = new App();
addSesameStacks(app, stageConfigFromContext(app.node));
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
