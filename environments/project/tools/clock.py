"""Clock tool: the simulated date (project-world.md §7, tool 1)."""

from silo_gym import kit

get_current_date = kit.clock_tool(

        'Return today\'s date in the tracker as {"today": "YYYY-MM-DD"}. The tracker runs on a fixed '
        "simulated calendar: judge due dates, overdue work, sprint ends and days in status against "
        "this date, not against your own idea of today. Read-only."

)
