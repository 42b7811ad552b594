"""Roles (issue 17): the review permission and the Reviewers group holding it. The audit trail
outlives its job: job_ref and job_name keep which document an event was about."""

import django.db.models.deletion
from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.db import migrations, models


def reviewers_group(apps, schema_editor):
    # Permissions are made after migrate (post_migrate): make this app's now, the usual way.
    app_config = apps.get_app_config("conversion")
    app_config.models_module = True
    create_permissions(app_config, verbosity=0, apps=apps)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="Reviewers")
    group.permissions.add(
        Permission.objects.get(content_type__app_label="conversion", codename="review_job")
    )
    # Until now staff reviewed: they stay reviewers.
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    for user in User.objects.filter(is_staff=True):
        user.groups.add(group)


def job_refs(apps, schema_editor):
    ReviewEvent = apps.get_model("conversion", "ReviewEvent")
    for event in ReviewEvent.objects.select_related("job").filter(job__isnull=False):
        event.job_ref = event.job_id
        event.job_name = event.job.original_name
        event.save(update_fields=["job_ref", "job_name"])


class Migration(migrations.Migration):

    dependencies = [
        ('conversion', '0002_review'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='job',
            options={'ordering': ['-created_at'], 'permissions': [('review_job', 'Can review and correct any converted document')]},
        ),
        migrations.AddField(
            model_name='reviewevent',
            name='job_name',
            field=models.CharField(blank=True, max_length=255),
        ),
        migrations.AddField(
            model_name='reviewevent',
            name='job_ref',
            field=models.UUIDField(db_index=True, null=True),
        ),
        migrations.AlterField(
            model_name='reviewevent',
            name='job',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='review_events', to='conversion.job'),
        ),
        migrations.RunPython(job_refs, migrations.RunPython.noop),
        migrations.RunPython(reviewers_group, migrations.RunPython.noop),
    ]
