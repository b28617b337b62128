/** The name of the cli plugin's output channel, and of its inbox: one constant for the files that use it. */
export const CLI_CHANNEL = "cli";
