import { z } from 'zod';
import { recordPlan } from './societyServices.js';
import { defineTool, jsonResult } from './tool.js';

/** Most steps one `create_plan` call may record. */
const maxPlanSteps = 50;

/**
 * The planning paradigm: the agent writes its plan down and each step becomes a `plan.step`
 * Task (to itself, under the current Task), so memory and observers see the plan in order.
 */
export const createPlanTool = defineTool({
  name: 'create_plan',
  description: 'Write down a plan for your current task as ordered steps. Each step is recorded as a task you can refer to later.',
  parameters: z.object({
    goal: z.string().min(1).max(2_000).describe('What the plan achieves'),
    steps: z
      .array(
        z.object({
          title: z.string().min(1).max(200).describe('The step in a few words'),
          detail: z.string().max(5_000).optional().describe('How to do it, if not obvious'),
        }),
      )
      .min(1)
      .max(maxPlanSteps)
      .describe('The steps, in order'),
  }),
  annotations: { destructive: false, openWorld: false },
  execute: (args, { agentId, society, task }) => {
    const plan = recordPlan(society, { agentId, goal: args.goal, steps: args.steps, parentTask: task });
    return Promise.resolve(jsonResult({ planId: plan.planId, steps: plan.steps.map((step) => ({ ...step })) }));
  },
});
