import factory

from taxonomy.models import Category, Codebook, Dimension


class CodebookFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Codebook

    key = factory.Sequence(lambda n: f"codebook-{n}")
    version = "1.0"
    name = factory.Sequence(lambda n: f"Codebook {n}")
    content_hash = factory.Sequence(lambda n: f"{n:064x}")


class DimensionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Dimension

    codebook = factory.SubFactory(CodebookFactory)
    key = factory.Sequence(lambda n: f"dimension-{n}")
    name = factory.Sequence(lambda n: f"Dimension {n}")
    position = factory.Sequence(int)


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Category

    dimension = factory.SubFactory(DimensionFactory)
    key = factory.Sequence(lambda n: f"category-{n}")
    path = factory.LazyAttribute(lambda c: f"{c.parent.path}/{c.key}" if c.parent else c.key)
    depth = factory.LazyAttribute(lambda c: c.parent.depth + 1 if c.parent else 0)
    name = factory.Sequence(lambda n: f"Category {n}")
    definition = "What this category means."
    position = factory.Sequence(int)
