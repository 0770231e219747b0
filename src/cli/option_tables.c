/* SPDX-License-Identifier: MIT */
#include "option_tables.h"

#include "track_options.h"

const gt_cli_command_opts gt_cli_commands[] = {
    {"gpu-tracker", gt_cli_track_opts, &gt_cli_track_n_opts, gt_cli_track_usage},
    {"gpu-tracker sub-track combine", gt_cli_combine_opts, &gt_cli_combine_n_opts, gt_cli_combine_usage},
    {"gpu-tracker sub-track analyze", gt_cli_analyze_opts, &gt_cli_analyze_n_opts, gt_cli_analyze_usage},
    {"gpu-tracker sub-track compare", gt_cli_compare_opts, &gt_cli_compare_n_opts, gt_cli_compare_usage},
    {"gpu-tracker plot", gt_cli_plot_opts, &gt_cli_plot_n_opts, gt_cli_plot_usage},
    {"gpu-tracker merge", gt_cli_merge_opts, &gt_cli_merge_n_opts, gt_cli_merge_usage},
};

const size_t gt_cli_n_commands = sizeof gt_cli_commands / sizeof *gt_cli_commands;
