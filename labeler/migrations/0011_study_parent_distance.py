"""The hierarchy alpha's distance between two different paths under one top category, set per
study (labeler.agreement.hierarchy)."""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("labeler", "0010_composite_foreign_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="parent_distance",
            field=models.FloatField(
                db_default=0.5,
                default=0.5,
                help_text="Hierarchy alpha: the distance between two different category paths "
                "under one top category (0 to 1; the same path is 0, paths under different top "
                "categories 1).",
                validators=[
                    django.core.validators.MinValueValidator(0.0),
                    django.core.validators.MaxValueValidator(1.0),
                ],
            ),
        ),
    ]
