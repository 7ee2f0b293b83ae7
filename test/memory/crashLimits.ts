/** Small tiers, so a crash round of a few dozen Tasks moves entries through every tier. */
export const crashLimits = { l1Capacity: 4, l2Capacity: 2, l3Capacity: 3, entriesPerStep: 3, maxBacklog: 10 };
